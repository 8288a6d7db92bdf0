#!/usr/bin/env bash
# Taskboard end to end with real processes (docs/performance.md, "Real processes"):
# a taskboard-scheduler on RocksDB in a temp directory, one taskboard-worker and the
# taskboard CLI over loopback; one flow of N no-op tasks; prints tasks/s and the CPU
# each process spent per task (utime + stime from /proc).
#
#   tools/bench/taskboard_e2e.sh                       # board of 10,000, wal, 64 slots, CLI follows
#   N=100000 FOLLOW=0 tools/bench/taskboard_e2e.sh     # no follower: poll `taskboard runs`
#   KIND=map DURABILITY=sync SLOTS=4 PREFETCH=0 tools/bench/taskboard_e2e.sh
#
# Knobs: N, KIND (board | board-args: every task reads an arg | map: one map phase, 64 items
# in flight), DURABILITY (wal | sync |
# none), SLOTS, PREFETCH (worker --prefetch; default: the worker's), FOLLOW (1: `taskboard
# run`, which tails WatchRun and renders; 0: `taskboard run --no-watch`, then poll every
# 200 ms and end at the run's finished_at as the scheduler recorded it, so the poll's
# granularity does not count), BUILD_DIR (default build).
#
# With FOLLOW=1 a second line splits the time at the run's finished_at (the
# no-follower runs' end): tasks/s up to it, and how long after it the CLI
# exited (the run's last step, the last events' way to the CLI, its final
# fetch and table, its exit).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BUILD_DIR:-build}/bin
n=${N:-10000}
kind=${KIND:-board}
durability=${DURABILITY:-wal}
slots=${SLOTS:-64}
follow=${FOLLOW:-1}
dir=$(mktemp -d "${TMPDIR:-/tmp}/taskboard-e2e.XXXXXX")
scheduler_pid=
worker_pid=
cleanup() {
  [[ -n $worker_pid ]] && kill "$worker_pid" 2>/dev/null || true
  [[ -n $scheduler_pid ]] && kill "$scheduler_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/taskboard-scheduler" --listen "127.0.0.1:$port" --data-dir "$dir/db" \
  --durability "$durability" --max-tasks-per-run 1000000 --max-items-per-phase 1000000 \
  --max-spec-bytes 268435456 >"$dir/scheduler.log" 2>&1 &
scheduler_pid=$!
"$bin/taskboard-worker" --scheduler "127.0.0.1:$port" --slots "$slots" \
  ${PREFETCH:+--prefetch "$PREFETCH"} --data-dir "$dir/worker" >"$dir/worker.log" 2>&1 &
worker_pid=$!

python3 - "$n" "$kind" >"$dir/flow.json" <<'PY'
import json, sys
n, kind = int(sys.argv[1]), sys.argv[2]
if kind == "board":
    flow = {"name": "e2e-board", "kind": "board",
            "board": {"tasks": [{"id": f"t{i}", "agent": "noop", "task": "x"} for i in range(n)]}}
elif kind == "board-args":
    # Every task interpolates an arg: the validator and the driver's
    # interpolation context, per task.
    flow = {"name": "e2e-board-args", "kind": "board", "args": {"k": {"default": "v"}},
            "board": {"tasks": [{"id": f"t{i}", "agent": "noop", "task": "x {args.k}"}
                                for i in range(n)]}}
else:
    flow = {"name": "e2e-map", "phases": [{"id": "each", "type": "map", "agent": "noop",
            "over": list(range(n)), "concurrency": 64, "task": "x {item}"}]}
print(json.dumps(flow))
PY

export TASKBOARD_SCHEDULER=127.0.0.1:$port
for _ in $(seq 200); do
  "$bin/taskboard" workers 2>/dev/null | grep -q noop && break
  sleep 0.05
done
"$bin/taskboard" workers 2>/dev/null | grep -q noop || { cat "$dir/scheduler.log" "$dir/worker.log"; exit 1; }

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The run's finished_at as the scheduler recorded it, in seconds since the epoch.
finished_at() {
  "$bin/taskboard" show "$1" --json | python3 -c '
import datetime, json, sys
run = json.load(sys.stdin)
run = run.get("run", run)
finished = run.get("finishedAt") or run["finished_at"]
print(datetime.datetime.fromisoformat(finished.replace("Z", "+00:00")).timestamp())'
}
scheduler_cpu=$(cpu "$scheduler_pid")
worker_cpu=$(cpu "$worker_pid")
start=$(date +%s.%N)
if [[ $follow == 1 ]]; then
  /usr/bin/time -f "%U %S" -o "$dir/client.time" "$bin/taskboard" run "$dir/flow.json" \
    >/dev/null 2>"$dir/client.err"
  end=$(date +%s.%N)
else
  run_id=$("$bin/taskboard" run --no-watch "$dir/flow.json" 2>/dev/null | head -1)
  echo "0 0" >"$dir/client.time"
  until "$bin/taskboard" runs | grep "^$run_id" | grep -q -E 'completed|failed'; do sleep 0.2; done
  end=$(finished_at "$run_id")
fi
python3 - "$n" "$start" "$end" "$(getconf CLK_TCK)" "$scheduler_cpu" "$(cpu "$scheduler_pid")" \
  "$worker_cpu" "$(cpu "$worker_pid")" "$dir/client.time" \
  "$kind n=$n durability=$durability slots=$slots prefetch=${PREFETCH:-default} follow=$follow" <<'PY'
import sys
n, start, end, hz = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
scheduler = (float(sys.argv[6]) - float(sys.argv[5])) / hz
worker = (float(sys.argv[8]) - float(sys.argv[7])) / hz
client = sum(map(float, open(sys.argv[9]).read().split()))
us = lambda seconds: seconds / n * 1e6
print(f"{sys.argv[10]}: {n / (end - start):,.0f} tasks/s, CPU per task "
      f"{us(scheduler + worker + client):.0f} us (scheduler {us(scheduler):.0f}, "
      f"worker {us(worker):.0f}, client {us(client):.0f})")
PY
if [[ $follow == 1 ]]; then
  run_id=$("$bin/taskboard" runs | awk 'NR > 1 { print $1; exit }')
  python3 - "$n" "$start" "$(finished_at "$run_id")" "$end" <<'PY'
import sys
n, start, finished, end = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f"  up to finished_at: {n / (finished - start):,.0f} tasks/s; "
      f"the CLI exited {(end - finished) * 1000:.0f} ms after it")
PY
fi
