import { useEffect, useState } from "preact/hooks";
import { call } from "../api";
import { duration, shortStatus, tokens, usd } from "../format";
import { AttemptsTable } from "./attempts";
import { ErrorNote, StatusBadge } from "./errors";

function taskLink(ref: any): string {
  return `#/runs/${encodeURIComponent(ref.runId)}/${encodeURIComponent(ref.taskId)}`;
}

// One task: what it was asked (after interpolation), its attempts and why
// each ended, the prior work its flow policy chose and where each piece came
// from, its tool calls with the shared cache's hits and the task that paid,
// its turns, usage and output.
export function TaskPanel({ runId, taskId }: { runId: string; taskId: string }) {
  const [data, setData] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    setData(null);
    call<any>("GetTask", { runId, taskId })
      .then((r) => live && setData(r))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [runId, taskId]);
  if (error) return <ErrorNote error={error} />;
  if (!data) return <p aria-busy="true">Loading task {taskId}…</p>;
  const task = data.task ?? {};
  const execution = data.execution ?? {};
  const prior = data.priorWork ?? {};
  const calls: any[] = data.toolCalls ?? [];
  return (
    <section class="task" aria-label={`Task ${taskId}`} data-testid="task-panel">
      <h2>
        Task {taskId} <StatusBadge status={shortStatus(task.state)} />
      </h2>
      <dl class="facts">
        <dt>Agent</dt>
        <dd>{task.agent || task.role || "—"}</dd>
        <dt>Attempt</dt>
        <dd>{task.attempt ?? 0}</dd>
        <dt>Worker</dt>
        <dd>{task.workerId || "—"}</dd>
        <dt>Duration</dt>
        <dd>{duration(task.startedAt, task.finishedAt)}</dd>
        <dt>Usage</dt>
        <dd>
          {tokens(task.usage) || "—"} {usd(task.usage?.costUsd)}
        </dd>
        {task.childRunId && (
          <>
            <dt>Child run</dt>
            <dd>
              <a href={`#/runs/${encodeURIComponent(task.childRunId)}`}>{task.childRunId}</a>
            </dd>
          </>
        )}
      </dl>
      {task.skipReason && <p class="hint">Skipped: {task.skipReason}</p>}
      {task.error && <pre tabIndex={0} class="output error-text">{task.error}</pre>}
      <h3>Attempts</h3>
      <AttemptsTable task={task} />
      {execution.prompt && (
        <>
          <h3>Prompt</h3>
          <pre tabIndex={0} class="output" data-testid="task-prompt">
            {execution.prompt}
          </pre>
        </>
      )}
      <h3>Prior work</h3>
      {prior.meta && (
        <p class="hint">
          Policy {prior.meta.policy || "default"}: {prior.meta.selected ?? 0} of{" "}
          {prior.meta.available ?? 0} observations
          {prior.meta.fallbackReason ? ` (${prior.meta.fallbackReason})` : ""}
        </p>
      )}
      {(prior.observations ?? []).length === 0 ? (
        <p class="hint">None given.</p>
      ) : (
        <ul class="prior" data-testid="prior-work">
          {prior.observations.map((o: any) => (
            <li key={o.seq}>
              <code>{o.toolName}</code> {o.argsJson} ·{" "}
              <a href={taskLink(o)}>from {o.taskId}</a>
              {o.cached && o.sourceTask && (
                <>
                  {" "}
                  (a cache hit; <a href={taskLink(o.sourceTask)}>{o.sourceTask.taskId}</a> paid)
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {prior.narrative && <pre tabIndex={0} class="output">{prior.narrative}</pre>}
      <h3>Tool calls</h3>
      {calls.length === 0 ? (
        <p class="hint">None.</p>
      ) : (
        <table class="calls" data-testid="tool-calls">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Arguments</th>
              <th scope="col">Cache</th>
              <th scope="col">Paid by</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((o) => (
              <tr key={o.seq}>
                <td>
                  <code>{o.toolName}</code>
                </td>
                <td>
                  <code>{(o.argsJson ?? "").slice(0, 120)}</code>
                </td>
                <td class={o.cached ? "hit" : "miss"}>{o.cached ? "hit" : "miss"}</td>
                <td>
                  {o.cached && o.sourceTask ? (
                    <a href={taskLink(o.sourceTask)}>{o.sourceTask.taskId}</a>
                  ) : (
                    "this task"
                  )}
                </td>
                <td>{o.durationMs ? `${o.durationMs} ms` : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(execution.messages ?? []).length > 0 && (
        <>
          <h3>Conversation ({execution.turns ?? execution.messages.length} turns)</h3>
          <ol class="turns">
            {execution.messages.map((m: any, i: number) => (
              <li key={i}>
                <strong>{m.role}</strong>
                <pre tabIndex={0} class="output">{m.content}</pre>
              </li>
            ))}
          </ol>
        </>
      )}
      {execution.stopReason && <p class="hint">Stopped: {execution.stopReason}</p>}
      {task.output && (
        <>
          <h3>Output</h3>
          <pre tabIndex={0} class="output" data-testid="task-output">
            {task.output}
          </pre>
        </>
      )}
    </section>
  );
}
