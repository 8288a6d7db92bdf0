// A link to a run's page, named by its id (the schedules' and triggers'
// pages list the runs they started).
export function RunLink({ runId }: { runId: string }) {
  return <a href={`#/runs/${encodeURIComponent(runId)}`}>{runId}</a>;
}
