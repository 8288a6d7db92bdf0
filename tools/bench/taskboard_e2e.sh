#!/usr/bin/env bash
# Taskboard end to end with real processes (docs/performance.md, "Real processes"):
# a taskboard-scheduler on RocksDB in a temp directory, one taskboard-worker and the
# taskboard CLI over loopback; one flow of N no-op tasks; prints tasks/s and the CPU
# each process spent per task (utime + stime from /proc).
#
#   tools/bench/taskboard_e2e.sh                       # board of 10,000, wal, 64 slots, CLI follows
#   N=100000 FOLLOW=0 tools/bench/taskboard_e2e.sh     # no follower: poll `taskboard runs`
#   KIND=map DURABILITY=sync SLOTS=4 PREFETCH=0 tools/bench/taskboard_e2e.sh
#   HA=1 N=10000 FOLLOW=0 tools/bench/taskboard_e2e.sh   # 3 replicas on a 1-member etcd
#   HA=1 LATENCY=300 tools/bench/taskboard_e2e.sh        # + SubmitRun round trips, p50/p99
#
# Knobs: N, KIND (board | board-args: every task reads an arg | map: one map phase, 64 items
# in flight), DURABILITY (wal | sync |
# none), SLOTS, PREFETCH (worker --prefetch; default: the worker's), HA (1: three
# replicated schedulers, docs/high-availability.md, on one etcd member started here; the
# worker and the CLI get the three addresses; CPU counts every replica), LATENCY (a count:
# after the run, that many one-task SubmitRuns one after another over the leader's HTTP
# API, and their round trip's p50/p99: with HA=1 it includes the followers' ack), FOLLOW (1: `taskboard
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
ha=${HA:-0}
latency=${LATENCY:-0}
scheduler_pids=()
worker_pid=
etcd_pid=
cleanup() {
  [[ -n $worker_pid ]] && kill "$worker_pid" 2>/dev/null || true
  for pid in "${scheduler_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [[ -n $etcd_pid ]] && kill "$etcd_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ha_flags=()
if [[ $ha == 1 ]]; then
  etcd_client=$(free_port) etcd_peer=$(free_port)
  etcd --name e0 --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_client" \
    --advertise-client-urls "http://127.0.0.1:$etcd_client" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "e0=http://127.0.0.1:$etcd_peer" >"$dir/etcd.log" 2>&1 &
  etcd_pid=$!
  ha_flags=(--ha-etcd-endpoints "127.0.0.1:$etcd_client" --ha-cluster bench)
fi
addresses=()
http_ports=()
for i in $(seq 0 $((ha == 1 ? 2 : 0))); do
  port=$(free_port) http=$(free_port)
  replica_flags=()
  [[ $ha == 1 ]] && replica_flags=("${ha_flags[@]}" --ha-replica-id "s$i")
  "$bin/taskboard-scheduler" --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$http" \
    --data-dir "$dir/db$i" --durability "$durability" --max-tasks-per-run 1000000 \
    --max-items-per-phase 1000000 --max-spec-bytes 268435456 \
    "${replica_flags[@]}" \
    >"$dir/scheduler$i.log" 2>&1 &
  scheduler_pids+=($!)
  addresses+=("127.0.0.1:$port")
  http_ports+=("$http")
done
scheduler_list=$(IFS=,; echo "${addresses[*]}")
if [[ $ha == 1 ]]; then
  # Exit 0: exactly one replica answers as the leader.
  for _ in $(seq 300); do
    "$bin/taskboard" admin ha status --scheduler "$scheduler_list" >/dev/null 2>&1 && break
    sleep 0.1
  done
  "$bin/taskboard" admin ha status --scheduler "$scheduler_list" ||
    { cat "$dir"/scheduler*.log; exit 1; }
fi
"$bin/taskboard-worker" --scheduler "$scheduler_list" --slots "$slots" \
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

export TASKBOARD_SCHEDULER=$scheduler_list
for _ in $(seq 200); do
  "$bin/taskboard" workers 2>/dev/null | grep -q noop && break
  sleep 0.05
done
"$bin/taskboard" workers 2>/dev/null | grep -q noop ||
  { cat "$dir"/scheduler*.log "$dir/worker.log"; exit 1; }

# Jiffies spent by the given processes together.
cpu() {
  local total=0 pid
  for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$total"
}
# The run's finished_at as the scheduler recorded it, in seconds since the epoch.
finished_at() {
  "$bin/taskboard" show "$1" --json | python3 -c '
import datetime, json, sys
run = json.load(sys.stdin)
run = run.get("run", run)
finished = run.get("finishedAt") or run["finished_at"]
print(datetime.datetime.fromisoformat(finished.replace("Z", "+00:00")).timestamp())'
}
scheduler_cpu=$(cpu "${scheduler_pids[@]}")
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
python3 - "$n" "$start" "$end" "$(getconf CLK_TCK)" "$scheduler_cpu" "$(cpu "${scheduler_pids[@]}")" \
  "$worker_cpu" "$(cpu "$worker_pid")" "$dir/client.time" \
  "$kind n=$n durability=$durability slots=$slots prefetch=${PREFETCH:-default} follow=$follow ha=$ha" <<'PY'
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
if ((latency > 0)); then
  # One-task runs, one after another, over one HTTP connection to the leader
  # (a follower answers 503): SubmitRun's reply waits for the write, and with
  # HA=1 for the in-sync follower's ack.
  python3 - "$latency" "ha=$ha durability=$durability" "${http_ports[@]}" <<'PY'
import http.client, json, sys, time
count, label, ports = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
flow = {"name": "latency", "kind": "board",
        "board": {"tasks": [{"id": "t", "agent": "noop", "task": "x"}]}}
body = json.dumps({"source": {"text": json.dumps(flow)}})
headers = {"Content-Type": "application/json"}
leader = None
for port in ports:
    conn = http.client.HTTPConnection("127.0.0.1", int(port))
    conn.request("POST", "/api/v1/SubmitRun", body, headers)
    answer = conn.getresponse()
    answer.read()
    if answer.status == 200:
        leader = conn
        break
    conn.close()
assert leader is not None, "no replica accepted SubmitRun"
times = []
for _ in range(count):
    start = time.perf_counter()
    leader.request("POST", "/api/v1/SubmitRun", body, headers)
    answer = leader.getresponse()
    answer.read()
    assert answer.status == 200, answer.status
    times.append((time.perf_counter() - start) * 1000)
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"SubmitRun round trip, {label}, {count} one-task runs: p50 {pick(0.5):.2f} ms, "
      f"p99 {pick(0.99):.2f} ms, max {times[-1]:.2f} ms")
PY
fi
