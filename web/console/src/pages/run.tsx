import { useEffect, useRef, useState } from "preact/hooks";
import { call, consoleConfig } from "../api";
import { followRun } from "../live_run";
import { deadlineText, duration, shortStatus, tokens, traceUrl, usd } from "../format";
import { ApprovalCard } from "./approvals";
import { ErrorNote, StatusBadge } from "./errors";
import { RunGraph } from "./run_graph";
import { TaskPanel } from "./task";

const ENDED = ["completed", "failed", "blocked", "cancelled", "paused", "timed_out"];
const RESUMABLE = ["failed", "cancelled", "blocked", "paused", "timed_out"];

// One run: its graph, live while it runs (live_run.ts), its output, and what
// can be done.
export function RunPage({ runId, taskId }: { runId: string; taskId?: string }) {
  const [run, setRun] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(false);
  const refresh = useRef<() => void>(() => {});
  const [traceTemplate, setTraceTemplate] = useState("");
  useEffect(() => {
    void consoleConfig().then((config) => setTraceTemplate(config.traceUrlTemplate));
  }, []);

  useEffect(() => {
    setLive(true);
    const follower = followRun(runId, {
      onRun: (next) => {
        setRun(next);
        setError(null);
      },
      onError: setError,
      onEnd: () => setLive(false),
    });
    refresh.current = follower.refresh;
    return follower.stop;
  }, [runId]);

  if (!run) return error ? <ErrorNote error={error} /> : <p aria-busy="true">Loading {runId}…</p>;
  const status = shortStatus(run.status);
  const trace = traceUrl(traceTemplate, run.traceId);
  return (
    <section>
      <p>
        <a href="#/runs">← Runs</a>
      </p>
      <h1>
        {run.flowName || runId} <StatusBadge status={status} />
      </h1>
      <dl class="facts">
        <dt>Run</dt>
        <dd>{run.runId}</dd>
        {run.parentRunId && (
          <>
            <dt>Parent</dt>
            <dd>
              <a href={`#/runs/${encodeURIComponent(run.parentRunId)}`}>{run.parentRunId}</a>
            </dd>
          </>
        )}
        <dt>Tasks</dt>
        <dd>
          {run.tasksDone ?? 0}/{run.tasksTotal ?? 0}
        </dd>
        <dt>Duration</dt>
        <dd>{duration(run.createdAt, run.finishedAt)}</dd>
        {deadlineText(run) && (
          <>
            <dt>Deadline</dt>
            <dd data-testid="run-deadline">{deadlineText(run)}</dd>
          </>
        )}
        {tokens(run.billed ?? run.usage) && (
          <>
            <dt>Usage</dt>
            <dd>
              {tokens(run.billed ?? run.usage)} {usd((run.billed ?? run.usage)?.costUsd)}
            </dd>
          </>
        )}
        {trace && (
          <>
            <dt>Trace</dt>
            <dd>
              <a href={trace} target="_blank" rel="noopener noreferrer" data-testid="trace-link">
                {run.traceId}
              </a>
            </dd>
          </>
        )}
        <dt>Updates</dt>
        <dd data-testid="live">{live ? "live" : "ended"}</dd>
      </dl>
      <RunActions run={run} onDone={() => refresh.current()} />
      <ErrorNote error={error} />
      {(run.tasks ?? [])
        .filter((t: any) => t.approval && !t.approval.decision && shortStatus(t.state) === "running")
        .map((t: any) => (
          <ApprovalCard
            key={t.taskId}
            pending={{ runId: run.runId, stepId: t.taskId, flowName: run.flowName, approval: t.approval }}
            onDecided={() => refresh.current()}
          />
        ))}
      <RunGraph key={run.runId} run={run} selected={taskId} />
      {taskId && <TaskPanel runId={runId} taskId={taskId} />}
      {run.error && (
        <section>
          <h2>Error</h2>
          <pre tabIndex={0} class="output">{run.error}</pre>
        </section>
      )}
      {run.output && (
        <section>
          <h2>Output</h2>
          <pre tabIndex={0} class="output" data-testid="run-output">
            {run.output}
          </pre>
        </section>
      )}
      {(run.childRunIds ?? []).length > 0 && (
        <section>
          <h2>Child runs</h2>
          <ul>
            {run.childRunIds.map((id: string) => (
              <li key={id}>
                <a href={`#/runs/${encodeURIComponent(id)}`}>{id}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}

function RunActions({ run, onDone }: { run: any; onDone: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const status = shortStatus(run.status);
  const act = async (method: string) => {
    setError(null);
    try {
      await call(method, { runId: run.runId, reason: "from the web console" });
      onDone();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="actions">
      {!ENDED.includes(status) && <button onClick={() => act("CancelRun")}>Cancel run</button>}
      {RESUMABLE.includes(status) && (
        <button onClick={() => act("ResumeRun")}>Resume run</button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
