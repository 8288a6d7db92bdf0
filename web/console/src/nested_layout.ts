// A run's graph with its expanded child runs drawn inside their nodes.
//
// Each run is laid out on its own by buildDag (the same grouping, map
// collapsing and dagre layout as the page's run); an expanded node becomes
// a box as large as its child's laid-out graph plus a header, and the
// parent is laid out with that size. Children are laid out first, so a
// child's own expanded children enlarge it in turn. Nesting stops at
// MAX_NESTING levels below the page's run: deeper child runs are links.
import { buildDag, Dag, DagNode, NODE_SIZE } from "./dag";
import { ChildView } from "./nested";

export const MAX_NESTING = 3;
// The expanded box: a header as tall as a plain node plus a line for the
// child run's id and liveness, then the child's graph with a margin.
export const BOX_HEADER = NODE_SIZE.height + 16;
export const BOX_PAD = 8;
const EMPTY_HEIGHT = 28;

export interface NestedGraph extends Dag {
  runId: string;
  // depth 0 is the page's run.
  depth: number;
  // Per expanded node id: the child drawn inside it.
  inside: Map<string, NestedChild>;
}

export interface NestedChild {
  view: ChildView;
  // Absent while the child's first GetRun is on its way, or it failed.
  graph?: NestedGraph;
}

export interface NestedSource {
  view(runId: string): ChildView | undefined;
}

// Keeps each run's previous layout, so a live child re-lays out only when
// its shape changes (as buildDag does for the page's run).
export type LayoutCache = Map<string, Dag>;

export function layoutNested(run: any, depth: number, source: NestedSource, cache: LayoutCache): NestedGraph {
  const inside = new Map<string, NestedChild>();
  const sizeOf = (node: DagNode) => {
    const view = node.childRunId && depth < MAX_NESTING ? source.view(node.childRunId) : undefined;
    if (!view) return undefined;
    const graph = view.run ? layoutNested(view.run, depth + 1, source, cache) : undefined;
    inside.set(node.id, { view, graph });
    const innerWidth = graph && graph.nodes.length > 0 ? graph.width : 0;
    const innerHeight = graph && graph.nodes.length > 0 ? graph.height : EMPTY_HEIGHT;
    return {
      width: Math.max(NODE_SIZE.width, innerWidth + 2 * BOX_PAD),
      height: BOX_HEADER + innerHeight + BOX_PAD,
    };
  };
  const dag = buildDag(run.tasks ?? [], run.spec, cache.get(run.runId), sizeOf);
  cache.set(run.runId, dag);
  return { ...dag, runId: run.runId, depth, inside };
}
