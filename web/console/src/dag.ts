// A run's tasks as a graph to draw: one node per task, except that the
// items of a map phase (many tasks with one phase id) collapse into one node
// with counts. Laid out by dagre; the layout depends only on the graph's
// shape, so a live run re-lays out only when tasks appear (or a node
// changes size: an expanded child run, nested_layout.ts), not on every
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

// The state a group shows: failing beats running beats waiting beats done.
function groupState(states: string[]): string {
  const order = ["failed", "running", "dispatched", "retrying", "ready", "pending", "cancelled", "skipped", "completed"];
  for (const state of order) if (states.includes(state)) return state;
  return states[0] ?? "pending";
}

interface Group {
  key: string;
  label: string;
  role: string;
  tasks: any[];
}

// The graph's nodes and edges before layout. What the flow declares is
// drawn from the start (a board's tasks and a taskflow's phases exist in
// the spec before their tasks are created); tasks fill them in as they
// appear. Plan-and-execute and supervisor runs grow their tasks as they go,
// so their graph is the tasks and their deps.
function groupsOf(tasks: any[], spec: any): { groups: Map<string, Group>; edges: Set<string> } {
  const groups = new Map<string, Group>();
  const edges = new Set<string>();
  const add = (key: string, label: string, role = "") => {
    if (!groups.has(key)) groups.set(key, { key, label, role, tasks: [] });
    return groups.get(key)!;
  };
  const edge = (from: string, to: string) => {
    if (from !== to && groups.has(from) && groups.has(to)) edges.add(`${from}\u0000${to}`);
  };
  const phases: any[] = spec?.taskflow?.phases ?? [];
  const boardTasks: any[] = spec?.board?.tasks ?? [];
  for (const phase of phases) add(`phase:${phase.id}`, phase.id, phase.type ? shortType(phase.type) : "");
  for (const task of boardTasks) add(`task:${task.id}`, task.id, task.agent ?? "");
  const nodeOf = new Map<string, string>();
  for (const task of tasks) {
    const key =
      phases.length > 0 && task.phaseId && groups.has(`phase:${task.phaseId}`)
        ? `phase:${task.phaseId}`
        : `task:${task.taskId}`;
    add(key, task.phaseId || task.taskId, [task.role, task.agent].filter(Boolean).join(" · ")).tasks.push(task);
    nodeOf.set(task.taskId, key);
  }
  for (const phase of phases) {
    for (const dep of [...(phase.dependsOn ?? []), ...(phase.fromPhases ?? [])]) edge(`phase:${dep}`, `phase:${phase.id}`);
  }
  for (const task of boardTasks) for (const dep of task.deps ?? []) edge(`task:${dep}`, `task:${task.id}`);
  for (const task of tasks) {
    for (const dep of task.deps ?? []) {
      const from = nodeOf.get(dep);
      if (from) edge(from, nodeOf.get(task.taskId)!);
    }
  }
  return { groups, edges };
}

function shortType(type: string): string {
  return type.replace(/^PHASE_TYPE_/, "").toLowerCase();
}

export const NODE_SIZE = { width: NODE_WIDTH, height: NODE_HEIGHT };

// A node's size when it is not NODE_SIZE (e.g. an expanded child run drawn
// inside it); undefined keeps NODE_SIZE.
export type SizeOf = (node: DagNode) => { width: number; height: number } | undefined;

export function buildDag(tasks: any[], spec: any, previous?: Dag, sizeOf?: SizeOf): Dag {
  const { groups, edges: edgeKeys } = groupsOf(tasks, spec);
  let shape = [...groups.keys()].join("\u0001") + "\u0002" + [...edgeKeys].join("\u0001");

  const nodes: DagNode[] = [];
  for (const group of groups.values()) {
    const states = group.tasks.map((t) => shortStatus(t.state));
    const done = states.filter((s) => s === "completed").length;
    const first = group.tasks[0];
    const collapsed = group.tasks.length > 1;
    nodes.push({
      id: group.key,
      label: group.label,
      sublabel: collapsed ? `${group.tasks.length} items · ${done} done` : group.role,
      state: groupState(states),
      taskIds: group.tasks.map((t) => t.taskId),
      childRunId: !collapsed && first?.childRunId ? first.childRunId : undefined,
      x: 0,
      y: 0,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    });
  }
  if (sizeOf) {
    for (const node of nodes) {
      const size = sizeOf(node);
      if (!size) continue;
      node.width = size.width;
      node.height = size.height;
      shape += `\u0003${node.id}=${size.width}x${size.height}`;
    }
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
