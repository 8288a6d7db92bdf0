import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { DagNode } from "../dag";
import { shortStatus } from "../format";
import { ChildView, MAX_LIVE_CHILDREN, NestedRuns } from "../nested";
import { BOX_HEADER, BOX_PAD, LayoutCache, layoutNested, MAX_NESTING, NestedChild, NestedGraph } from "../nested_layout";

// A run's graph as SVG. Each node is a link to its task (keyboard: Tab to a
// node, Enter opens it); a node whose task is carried out by a child run has
// a button that draws the child's graph inside it, live (nested.ts), and the
// same again for the child's own child runs, MAX_NESTING levels deep.
export function RunGraph({ run, selected }: { run: any; selected?: string }) {
  const [version, setVersion] = useState(0);
  const nested = useRef<NestedRuns | null>(null);
  if (!nested.current) nested.current = new NestedRuns(() => setVersion((v) => v + 1));
  const cache = useRef<LayoutCache>(new Map());
  useEffect(() => () => nested.current!.close(), []);
  useEffect(() => nested.current!.observe(run), [run]);
  const graph = useMemo(() => layoutNested(run, 0, nested.current!, cache.current), [run, version]);
  if (graph.nodes.length === 0) return <p class="hint">No tasks yet.</p>;
  return (
    <div class="graph" role="group" aria-label="Task graph" data-live-children={nested.current.liveCount()}>
      <svg width={graph.width} height={graph.height} viewBox={`0 0 ${graph.width} ${graph.height}`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" class="arrow" />
          </marker>
        </defs>
        <GraphBody graph={graph} selected={selected} nested={nested.current} />
      </svg>
    </div>
  );
}

interface BodyProps {
  graph: NestedGraph;
  selected?: string;
  nested: NestedRuns;
}

function GraphBody({ graph, selected, nested }: BodyProps) {
  return (
    <>
      {graph.edges.map((e) => (
        <polyline
          key={`${e.from}>${e.to}`}
          class="edge"
          points={e.points.map((p) => `${p.x},${p.y}`).join(" ")}
          marker-end="url(#arrow)"
        />
      ))}
      {graph.nodes.map((n) =>
        n.childRunId ? (
          <ChildRunNode key={n.id} node={n} graph={graph} nested={nested} selected={selected} />
        ) : (
          <NodeLink key={n.id} node={n} runId={graph.runId} selected={selected} x={n.x} y={n.y} height={n.height} />
        ),
      )}
    </>
  );
}

interface NodeLinkProps {
  node: DagNode;
  runId: string;
  selected?: string;
  x: number;
  y: number;
  height: number;
  // Room kept at the right for the child run's control.
  control?: boolean;
}

function NodeLink({ node: n, runId, selected, x, y, height, control }: NodeLinkProps) {
  const open = () => {
    if (n.taskIds.length === 0) return;
    location.hash = `#/runs/${encodeURIComponent(runId)}/${encodeURIComponent(n.taskIds[0])}`;
  };
  const label = clip(n.label, control ? 22 : 26);
  const sublabel = clip(n.sublabel, control ? 20 : 24);
  return (
    <g
      class={`node s-${n.state}${n.taskIds.includes(selected ?? "") ? " selected" : ""}`}
      transform={`translate(${x},${y})`}
      // Lower case: on SVG elements Preact sets attributes by name, and
      // only `tabindex` makes one focusable.
      tabindex={0}
      role="link"
      aria-label={`${n.label}: ${n.state}, ${n.sublabel}`}
      data-node={n.id}
      data-run={runId}
      data-state={n.state}
      aria-disabled={n.taskIds.length === 0 ? "true" : undefined}
      onClick={open}
      onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && open()}
    >
      <rect width={n.width} height={height} rx="6" />
      <text x="10" y="20" class="label">
        {label}
      </text>
      <text x="10" y="38" class="sublabel">
        {n.state} · {sublabel}
      </text>
    </g>
  );
}

// A node carried out by a child run: its link, a button that expands the
// child inside it (or, MAX_NESTING levels down, a link to the child's page),
// and, expanded, the child's graph.
function ChildRunNode({ node: n, graph, nested, selected }: { node: DagNode } & BodyProps) {
  const childRunId = n.childRunId!;
  const inside = graph.inside.get(n.id);
  const toggle = () => nested.toggle(childRunId, graph.runId);
  return (
    <g class="child-run" transform={`translate(${n.x},${n.y})`}>
      {inside && <rect class={`frame s-${n.state}`} width={n.width} height={n.height} rx="6" />}
      <NodeLink
        node={n}
        runId={graph.runId}
        selected={selected}
        x={0}
        y={0}
        height={inside ? BOX_HEADER : n.height}
        control
      />
      {graph.depth < MAX_NESTING ? (
        <g
          class="toggle"
          transform={`translate(${n.width - 32},12)`}
          tabindex={0}
          role="button"
          aria-expanded={inside ? "true" : "false"}
          aria-label={`${inside ? "Collapse" : "Expand"} child run ${childRunId}`}
          data-child-run={childRunId}
          onClick={toggle}
          onKeyDown={(e) => {
            if (e.key !== "Enter" && e.key !== " ") return;
            e.preventDefault();
            toggle();
          }}
        >
          <rect width="24" height="24" rx="4" />
          <path d={inside ? "M6,12 H18" : "M6,12 H18 M12,6 V18"} />
        </g>
      ) : (
        <g transform={`translate(${n.width - 32},12)`}>
          <a class="toggle" href={`#/runs/${encodeURIComponent(childRunId)}`} aria-label={`Open child run ${childRunId}`}>
            <rect width="24" height="24" rx="4" />
            <path d="M8,16 L16,8 M10,8 H16 V14" />
          </a>
        </g>
      )}
      {inside && <NestedRun child={inside} width={n.width} nested={nested} />}
    </g>
  );
}

function NestedRun({ child, width, nested }: { child: NestedChild; width: number; nested: NestedRuns }) {
  const { view, graph } = child;
  const status = view.run ? shortStatus(view.run.status) : "loading";
  return (
    <>
      <text x="10" y={BOX_HEADER - 10} class="note" data-testid="child-note">
        {clip(`${liveNote(view, status)} · ${view.runId}`, Math.floor((width - 20) / 7.2))}
      </text>
      <g
        class="nested"
        role="group"
        aria-label={`Child run ${view.runId}: ${status}`}
        data-run={view.runId}
        data-live={view.mode}
        transform={`translate(${BOX_PAD},${BOX_HEADER})`}
      >
        {graph && graph.nodes.length > 0 ? (
          <GraphBody graph={graph} nested={nested} />
        ) : (
          <text x="4" y="18" class="note">
            {clip(view.error ? `Could not load: ${(view.error as Error).message ?? view.error}` : graph ? "No tasks yet." : "Loading…", Math.floor((width - 30) / 7.2))}
          </text>
        )}
      </g>
    </>
  );
}

// What comes first is what gets read when the line is clipped: the run id
// is also in the button's and the group's names.
function liveNote(view: ChildView, status: string): string {
  if (view.mode === "live") return "live";
  if (view.mode === "paused") return `paused (${MAX_LIVE_CHILDREN} live at most)`;
  return status;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}
