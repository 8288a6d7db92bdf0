import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { call, watchRun } from "../api";
import { buildDag, Dag } from "../dag";
import { duration, shortStatus, tokens, usd } from "../format";
import { ApprovalCard } from "./approvals";
import { ErrorNote, StatusBadge } from "./errors";
import { TaskPanel } from "./task";

const ENDED = ["completed", "failed", "blocked", "cancelled", "paused"];

// One run: its graph, live while it runs (WatchRun events trigger a fresh
// GetRun, at most a few per second), its output, and what can be done.
export function RunPage({ runId, taskId }: { runId: string; taskId?: string }) {
  const [run, setRun] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(false);
  const refresh = useRef<() => void>(() => {});

  useEffect(() => {
    let alive = true;
    let timer: number | undefined;
    let inFlight = false;
    let again = false;
    const load = async () => {
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      try {
        const response = await call<any>("GetRun", { runId });
        if (alive) {
          setRun(response.run);
          setError(null);
        }
      } catch (e) {
        if (alive) setError(e);
      } finally {
        inFlight = false;
        if (again && alive) {
          again = false;
          void load();
        }
      }
    };
    refresh.current = () => {
      if (timer === undefined) {
        timer = window.setTimeout(() => {
          timer = undefined;
          void load();
        }, 250);
      }
    };
    void load();
    setLive(true);
    const stop = watchRun(
      runId,
      () => refresh.current(),
      () => {
        setLive(false);
        refresh.current();
      },
    );
    return () => {
      alive = false;
      stop();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [runId]);

  if (!run) return error ? <ErrorNote error={error} /> : <p aria-busy="true">Loading {runId}…</p>;
  const status = shortStatus(run.status);
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
        {tokens(run.billed ?? run.usage) && (
          <>
            <dt>Usage</dt>
            <dd>
              {tokens(run.billed ?? run.usage)} {usd((run.billed ?? run.usage)?.costUsd)}
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
      <RunGraph run={run} selected={taskId} />
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
      {["failed", "cancelled", "blocked", "paused"].includes(status) && (
        <button onClick={() => act("ResumeRun")}>Resume run</button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

// The graph as SVG: each node a link to its task (keyboard: Tab to a node,
// Enter to open it).
function RunGraph({ run, selected }: { run: any; selected?: string }) {
  const previous = useRef<Dag | undefined>(undefined);
  const dag = useMemo(() => {
    const built = buildDag(run.tasks ?? [], run.spec, previous.current);
    previous.current = built;
    return built;
  }, [run]);
  if (dag.nodes.length === 0) return <p class="hint">No tasks yet.</p>;
  const open = (taskId: string) => {
    location.hash = `#/runs/${encodeURIComponent(run.runId)}/${encodeURIComponent(taskId)}`;
  };
  return (
    <div class="graph" role="group" aria-label="Task graph">
      <svg width={dag.width} height={dag.height} viewBox={`0 0 ${dag.width} ${dag.height}`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" class="arrow" />
          </marker>
        </defs>
        {dag.edges.map((e) => (
          <polyline
            key={`${e.from}>${e.to}`}
            class="edge"
            points={e.points.map((p) => `${p.x},${p.y}`).join(" ")}
            marker-end="url(#arrow)"
          />
        ))}
        {dag.nodes.map((n) => (
          <g
            key={n.id}
            class={`node s-${n.state}${n.taskIds.includes(selected ?? "") ? " selected" : ""}`}
            transform={`translate(${n.x},${n.y})`}
            // Lower case: on SVG elements Preact sets attributes by name, and
            // only `tabindex` makes one focusable.
            tabindex={0}
            role="link"
            aria-label={`${n.label}: ${n.state}, ${n.sublabel}`}
            data-node={n.id}
            data-state={n.state}
            aria-disabled={n.taskIds.length === 0 ? "true" : undefined}
            onClick={() => n.taskIds.length && open(n.taskIds[0])}
            onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && n.taskIds.length && open(n.taskIds[0])}
          >
            <rect width={n.width} height={n.height} rx="6" />
            <text x="10" y="20" class="label">
              {n.label.length > 26 ? n.label.slice(0, 25) + "…" : n.label}
            </text>
            <text x="10" y="38" class="sublabel">
              {n.state} · {n.sublabel.length > 24 ? n.sublabel.slice(0, 23) + "…" : n.sublabel}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}
