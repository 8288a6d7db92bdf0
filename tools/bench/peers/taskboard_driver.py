"""Taskboard client for the peers benchmark: drives the `taskboard` CLI only.

A batch is one flow of n no-op tasks (a board of n independent tasks, or a taskflow whose one
`map` phase fans out over n items), written to a file before the clock starts. Two ways to wait
for it, chosen by --wait:

  poll    `taskboard run --no-watch FLOW` (returns after SubmitRun), then
          `taskboard runs --flow NAME --status <terminal statuses>` every --poll-ms until the
          run shows up. Nothing follows the run's events, so this is the scheduler's own rate;
          the clock stops when a poll sees the run finished (at most one interval plus one CLI
          call late; the server's own created->finished time is recorded next to it).
  follow  `taskboard run FLOW` with its live view sent to /dev/null: what a user types. The
          CLI tails WatchRun (two events per task) and renders them, which costs scheduler and
          client CPU.

Single-task latency is always `taskboard run` of a one-task board: submit, follow, exit when
finished. It includes starting the CLI process and its gRPC connection (a few ms; Celery's and
Dask's clients are already connected).
"""

import json
import os
import statistics
import subprocess
import time
from datetime import datetime

import harness

TERMINAL = "completed,failed,cancelled,blocked,paused"


def board_flow(name, n):
    tasks = [{"id": f"t{i}", "agent": "noop", "task": "x"} for i in range(n)]
    return {"name": name, "kind": "board", "board": {"tasks": tasks}}


def map_flow(name, n, concurrency):
    # A literal `over` array: the items exist at submit, as a board's tasks do.
    return {
        "name": name,
        "phases": [{
            "id": "each",
            "type": "map",
            "agent": "noop",
            "over": list(range(n)),
            "concurrency": concurrency,
            "task": "x {item}",
        }],
    }


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    parser = harness.common_args(__doc__)
    parser.add_argument("--cli", required=True, help="path of the taskboard binary")
    parser.add_argument("--scheduler", required=True, help="host:port")
    parser.add_argument("--shape", choices=["board", "map"], default="board")
    parser.add_argument("--map-concurrency", type=int, default=64,
                        help="map items in flight (the phase's `concurrency`)")
    parser.add_argument("--wait", choices=["poll", "follow"], default="poll")
    parser.add_argument("--poll-ms", type=int, default=100)
    parser.add_argument("--workdir", required=True, help="where the flow files go")
    args = parser.parse_args()

    env = dict(os.environ, TASKBOARD_SCHEDULER=args.scheduler)
    devnull = subprocess.DEVNULL

    def cli(*argv, capture=False):
        result = subprocess.run([args.cli, *argv], env=env, stdin=devnull,
                                stdout=subprocess.PIPE if capture else devnull,
                                stderr=subprocess.PIPE, text=True)
        return result

    # Flow files are written before any clock starts; each repetition gets its own flow name so
    # a poll can ask for exactly its run.
    files = []
    for rep in range(args.reps):
        name = f"peers-{args.shape}-{rep}"
        flow = (board_flow(name, args.n) if args.shape == "board"
                else map_flow(name, args.n, args.map_concurrency))
        path = os.path.join(args.workdir, f"{name}.json")
        with open(path, "w") as f:
            json.dump(flow, f)
        files.append((name, path))
    one = os.path.join(args.workdir, "peers-one.json")
    with open(one, "w") as f:
        json.dump(board_flow("peers-one", 1), f)

    def run_one():
        result = cli("run", one)
        if result.returncode != 0:
            raise SystemExit(f"taskboard run (one task) failed: {result.stderr.strip()}")

    def run_batch(n, rep):
        name, path = files[rep]
        polls = 0
        if args.wait == "follow":
            result = cli("run", path)
            if result.returncode != 0:
                raise SystemExit(f"taskboard run failed: {result.stderr.strip()}")
        else:
            result = cli("run", "--no-watch", path)
            if result.returncode != 0:
                raise SystemExit(f"taskboard run --no-watch failed: {result.stderr.strip()}")
            while True:
                polls += 1
                listed = cli("runs", "--flow", name, "--status", TERMINAL, "--limit", "1",
                             capture=True)
                if listed.returncode != 0:
                    raise SystemExit(f"taskboard runs failed: {listed.stderr.strip()}")
                if listed.stdout.strip():  # a header and the run; "no runs" goes to stderr
                    break
                time.sleep(args.poll_ms / 1000)
        return {"polls": polls, "flow": name}

    def check(reps):
        """After the clock: every run completed with n tasks done; keep the server's times."""
        for rep in reps:
            listed = cli("runs", "--json", "--flow", rep["flow"], "--limit", "1", capture=True)
            run = json.loads(listed.stdout)["runs"][0]
            shown = cli("show", "--json", "--tasks", "1", run["runId"], capture=True)
            detail = json.loads(shown.stdout)
            if detail["status"] != "RUN_STATUS_COMPLETED" or detail.get("tasksDone") != args.n:
                raise SystemExit(f"run {run['runId']}: {detail['status']}, "
                                 f"{detail.get('tasksDone')}/{args.n} tasks done")
            rep["server_seconds"] = (parse_time(detail["finishedAt"])
                                     - parse_time(detail["createdAt"]))
            rep["run_id"] = run["runId"]

    # What the CLI itself adds to the single-task latency: a process start, a gRPC connection
    # and one unary call (ListWorkers), timed the same way.
    cli_times = []
    for _ in range(max(5, args.latency_samples)):
        start = time.perf_counter()
        cli("workers")
        cli_times.append((time.perf_counter() - start) * 1000)
    cli_call_ms = statistics.median(cli_times)

    harness.measure(args, run_batch, run_one, client_mode="children", check=check,
                    extra={"cli_call_ms": cli_call_ms})


if __name__ == "__main__":
    main()
