// The child runs expanded inside a run's graph and how each is kept fresh.
//
// Each expanded child is loaded with GetRun and, while it runs, followed
// live with its own WatchRun stream (live_run.ts). Streams are bounded: at
// most MAX_LIVE_CHILDREN children stream at once, the most recently
// expanded ones, because the browser opens at most 6 HTTP/1.1 connections to
// the scheduler and the page's own stream and its API calls need some (the
// scheduler also caps streams, --http-max-streams). An older child past the
// bound is "paused": no stream, a note on its box, and one GetRun whenever
// its task in the parent run changes state (so it shows its end when it
// ends); it goes live again as soon as a stream is free (a live child ended
// or was collapsed). Collapsing a child collapses the children expanded
// inside it; close() stops everything when the page leaves.
import { shortStatus } from "./format";
import { followRun, RunFollower } from "./live_run";

export const MAX_LIVE_CHILDREN = 3;

// Run statuses after which a run's stream has nothing more to say.
const FINISHED = ["completed", "failed", "cancelled", "blocked"];

export interface ChildView {
  runId: string;
  run?: any;
  error?: unknown;
  // "live": its stream is open; "paused": past MAX_LIVE_CHILDREN, refreshed
  // when its task in the parent changes; "ended": the run ended.
  mode: "live" | "paused" | "ended";
}

interface Child extends ChildView {
  parentRunId: string;
  follower?: RunFollower;
  followerLive: boolean;
  // The state of the task it carries out in its parent run, as last seen.
  parentTaskState?: string;
}

export class NestedRuns {
  // In the order they were expanded: the newest last.
  private readonly children = new Map<string, Child>();
  private closed = false;

  // `onChange` is called after any child's data or mode changed.
  constructor(private readonly onChange: () => void) {}

  isExpanded(runId: string): boolean {
    return this.children.has(runId);
  }

  view(runId: string): ChildView | undefined {
    return this.children.get(runId);
  }

  // Streams open now (tests and the docs' bound).
  liveCount(): number {
    let live = 0;
    for (const child of this.children.values()) live += child.followerLive ? 1 : 0;
    return live;
  }

  expand(runId: string, parentRunId: string): void {
    if (this.closed || this.children.has(runId)) return;
    this.children.set(runId, { runId, parentRunId, mode: "paused", followerLive: false });
    this.reconcile();
    this.onChange();
  }

  // Collapses `runId` and every child expanded inside it, closing their streams.
  collapse(runId: string): void {
    const child = this.children.get(runId);
    if (!child) return;
    child.follower?.stop();
    this.children.delete(runId);
    for (const other of [...this.children.values()]) {
      if (other.parentRunId === runId) this.collapse(other.runId);
    }
    this.reconcile();
    this.onChange();
  }

  toggle(runId: string, parentRunId: string): void {
    if (this.isExpanded(runId)) this.collapse(runId);
    else this.expand(runId, parentRunId);
  }

  // A fresh snapshot of a run in the graph (the page's run or a child): a
  // paused child whose task in it changed state is loaded again.
  observe(run: any): void {
    for (const task of run?.tasks ?? []) {
      const child = task.childRunId ? this.children.get(task.childRunId) : undefined;
      if (!child) continue;
      const seen = child.parentTaskState;
      child.parentTaskState = task.state;
      if (seen !== undefined && seen !== task.state && !child.followerLive) child.follower?.refresh();
    }
  }

  close(): void {
    this.closed = true;
    for (const child of this.children.values()) child.follower?.stop();
    this.children.clear();
  }

  // Gives the newest unfinished children the streams, the others none.
  private reconcile(): void {
    if (this.closed) return;
    let streams = 0;
    for (const child of [...this.children.values()].reverse()) {
      if (child.mode === "ended") continue;
      const live = streams < MAX_LIVE_CHILDREN;
      streams += live ? 1 : 0;
      if (child.follower && child.followerLive === live) continue;
      child.follower?.stop();
      child.followerLive = live;
      child.mode = live ? "live" : "paused";
      child.follower = this.follow(child, live);
    }
  }

  private follow(child: Child, live: boolean): RunFollower {
    const changed = () => {
      if (!this.closed && this.children.get(child.runId) === child) this.onChange();
    };
    return followRun(child.runId, {
      live,
      onRun: (run) => {
        child.run = run;
        child.error = undefined;
        this.observe(run);
        // A paused child learns it ended from its snapshot; a live one
        // from its stream's end (after its last events).
        if (!child.followerLive && FINISHED.includes(shortStatus(run.status))) this.end(child);
        changed();
      },
      onError: (error) => {
        child.error = error;
        changed();
      },
      onEnd: () => this.end(child),
    });
  }

  // Its stream (if any) is over: free it for a paused child.
  private end(child: Child): void {
    if (this.children.get(child.runId) !== child || child.mode === "ended") return;
    child.mode = "ended";
    child.followerLive = false;
    this.reconcile();
    this.onChange();
  }
}
