// Keeps one run's snapshot fresh: a GetRun now, then, while following it
// live, one more GetRun per burst of its WatchRun events (at most one per
// 250 ms, never two at once), so the page redraws from the scheduler's
// state without polling. The run page and each expanded child run in its
// graph (nested.ts) follow their runs with this.
import { call, watchRun } from "./api";

export interface RunFollower {
  // Asks for a fresh GetRun soon (joined with any other asked for within 250 ms).
  refresh(): void;
  // Stops: closes the WatchRun stream and drops answers still on their way.
  stop(): void;
}

export interface FollowOptions {
  onRun: (run: any) => void;
  onError: (error: unknown) => void;
  // Called once when the run's event stream ends for good (the run ended,
  // or the stream was refused); never called when `live` is false.
  onEnd?: () => void;
  // false: only the first GetRun and those asked for with refresh(); no stream.
  live?: boolean;
}

export function followRun(runId: string, options: FollowOptions): RunFollower {
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
      if (alive) options.onRun(response.run);
    } catch (e) {
      if (alive) options.onError(e);
    } finally {
      inFlight = false;
      if (again && alive) {
        again = false;
        void load();
      }
    }
  };
  const refresh = () => {
    if (alive && timer === undefined) {
      timer = window.setTimeout(() => {
        timer = undefined;
        void load();
      }, 250);
    }
  };
  void load();
  const stopWatching =
    options.live === false
      ? () => {}
      : watchRun(runId, refresh, () => {
          if (!alive) return;
          options.onEnd?.();
          refresh();
        });
  return {
    refresh,
    stop() {
      alive = false;
      stopWatching();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
