import { duration, endedWord, shortStatus } from "../format";
import { Ago } from "./ago";

// The attempt the task's own fields describe, when there is one to show: a
// task waiting for its next attempt (ready, retrying) still carries the one
// that ended, which is already the last of earlierAttempts; so does a task
// cancelled while it waited.
function currentAttempt(task: any): any | null {
  const state = shortStatus(task.state);
  if (!task.attempt || ["pending", "ready", "retrying", "skipped"].includes(state)) return null;
  const earlier: any[] = task.earlierAttempts ?? [];
  const last = earlier[earlier.length - 1];
  if (
    state === "cancelled" &&
    last &&
    last.attempt === task.attempt &&
    (!task.startedAt || last.startedAt === task.startedAt)
  ) {
    return null;
  }
  return {
    attempt: task.attempt,
    workerId: task.workerId,
    startedAt: task.startedAt,
    endedAt: task.finishedAt,
    state,
    detail: task.error,
  };
}

// Every attempt of a task, oldest first: the earlier ones (Task.earlierAttempts,
// the scheduler keeps the last 20) with why each ended, then the current one.
export function AttemptsTable({ task }: { task: any }) {
  const earlier: any[] = task.earlierAttempts ?? [];
  const current = currentAttempt(task);
  if (earlier.length === 0 && !current) return <p class="hint">Not dispatched yet.</p>;
  return (
    <table class="attempts" data-testid="attempts">
      <thead>
        <tr>
          <th scope="col" class="num">Attempt</th>
          <th scope="col">Worker</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Ended</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {earlier.map((a, i) => (
          <tr key={`earlier-${i}`} data-ended={a.ended}>
            <td class="num">{a.attempt ?? 0}</td>
            <td>{a.workerId || "—"}</td>
            <td>
              <Ago at={a.startedAt} />
            </td>
            <td>{duration(a.startedAt, a.endedAt)}</td>
            <td>{endedWord(a.ended)}</td>
            <td class="detail">{a.detail}</td>
          </tr>
        ))}
        {current && (
          <tr key="current" data-current="true">
            <td class="num">{current.attempt}</td>
            <td>{current.workerId || "—"}</td>
            <td>
              <Ago at={current.startedAt} />
            </td>
            <td>{duration(current.startedAt, current.endedAt)}</td>
            <td>{current.state} (this attempt)</td>
            <td class="detail">{current.detail}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
