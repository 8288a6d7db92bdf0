// A run's tasks as a graph to draw: one node per task, except that the
// items of a map phase (many tasks with one phase id) collapse into one node
// with counts. Laid out by dagre; the layout depends only on the graph's
// shape, so a live run re-lays out only when tasks appear, not on every
// state change.
import dagre from "@dagrejs/dagre";
import { shortStatus } from "./format";

export interface DagNode {
  id: string;
  label: string;
  sublabel: string;
  state: string;
  taskIds: string[];
  childRunId?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DagEdge {
  from: string;
  to: string;
  points: { x: number; y: number }[];
}

export interface Dag {
  nodes: DagNode[];
  edges: DagEdge[];
  width: number;
  height: number;
  shape: string;
}

const NODE_WIDTH = 200;
const NODE_HEIGHT = 48;

// The node a task belongs to: its phase when the phase has several tasks.
function groupKey(task: any, phaseSizes: Map<string, number>): string {
  const phase = task.phaseId ?? "";
  return phase && (phaseSizes.get(phase) ?? 0) > 1 ? `phase:${phase}` : `task:${task.taskId}`;
}

// The state a group shows: failing beats running beats waiting beats done.
function groupState(states: string[]): string {
  const order = ["failed", "running", "dispatched", "retrying", "ready", "pending", "cancelled", "skipped", "completed"];
  for (const state of order) if (states.includes(state)) return state;
  return states[0] ?? "pending";
}

// `phases`: a taskflow's phases, whose `dependsOn` and `from` connect them
// (their tasks carry no deps of their own); empty for other kinds.
export function buildDag(tasks: any[], phases: any[], previous?: Dag): Dag {
  const phaseSizes = new Map<string, number>();
  for (const task of tasks) {
    if (task.phaseId) phaseSizes.set(task.phaseId, (phaseSizes.get(task.phaseId) ?? 0) + 1);
  }
  const groups = new Map<string, any[]>();
  const nodeOf = new Map<string, string>();
  for (const task of tasks) {
    const key = groupKey(task, phaseSizes);
    nodeOf.set(task.taskId, key);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(task);
  }
  const edgeKeys = new Set<string>();
  for (const task of tasks) {
    for (const dep of task.deps ?? []) {
      const from = nodeOf.get(dep);
      const to = nodeOf.get(task.taskId)!;
      if (from && from !== to) edgeKeys.add(`${from}\u0000${to}`);
    }
  }
  const nodeOfPhase = new Map<string, string>();
  for (const task of tasks) if (task.phaseId) nodeOfPhase.set(task.phaseId, nodeOf.get(task.taskId)!);
  for (const phase of phases) {
    const to = nodeOfPhase.get(phase.id);
    for (const dep of [...(phase.dependsOn ?? []), ...(phase.fromPhases ?? [])]) {
      const from = nodeOfPhase.get(dep);
      if (to && from && from !== to) edgeKeys.add(`${from}\u0000${to}`);
    }
  }
  const shape = [...groups.keys()].join("\u0001") + "\u0002" + [...edgeKeys].join("\u0001");

  const nodes: DagNode[] = [];
  for (const [key, members] of groups) {
    const states = members.map((t) => shortStatus(t.state));
    const done = states.filter((s) => s === "completed").length;
    const first = members[0];
    const collapsed = members.length > 1;
    nodes.push({
      id: key,
      label: first.phaseId || first.taskId,
      sublabel: collapsed
        ? `${members.length} items · ${done} done`
        : [first.role, first.agent].filter(Boolean).join(" · "),
      state: groupState(states),
      taskIds: members.map((t) => t.taskId),
      childRunId: collapsed ? undefined : first.childRunId || undefined,
      x: 0,
      y: 0,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    });
  }

  if (previous && previous.shape === shape) {
    const placed = new Map(previous.nodes.map((n) => [n.id, n]));
    for (const node of nodes) {
      const old = placed.get(node.id)!;
      node.x = old.x;
      node.y = old.y;
    }
    return { ...previous, nodes };
  }

  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "LR", nodesep: 16, ranksep: 48, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  for (const key of edgeKeys) {
    const [from, to] = key.split("\u0000");
    graph.setEdge(from, to);
  }
  dagre.layout(graph);
  for (const node of nodes) {
    const placed = graph.node(node.id);
    node.x = placed.x - node.width / 2;
    node.y = placed.y - node.height / 2;
  }
  const edges: DagEdge[] = graph.edges().map((e: { v: string; w: string }) => ({
    from: e.v,
    to: e.w,
    points: graph.edge(e).points ?? [],
  }));
  const size = graph.graph();
  return { nodes, edges, width: size.width ?? 0, height: size.height ?? 0, shape };
}
