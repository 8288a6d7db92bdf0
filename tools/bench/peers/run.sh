#!/usr/bin/env bash
# Side-by-side throughput of Taskboard, Celery 5 + Redis and Dask distributed on this machine:
# real processes over loopback, one worker process each, the same no-op workloads; prints one
# Markdown table. See README.md beside this file for what each configuration is and why.
#
#   tools/bench/peers/run.sh                 # everything, N=10000: 4 minutes on 2 quiet cores
#   N=2000 REPS=1 SYSTEMS=taskboard,dask tools/bench/peers/run.sh
#
# Environment:
#   BUILD_DIR        build directory holding bin/taskboard* (default: build, relative to the repo
#                    root; absolute paths work too)
#   N                tasks per batch (10000)          REPS    batches per configuration (3)
#   SLOW_N           tasks per batch for Celery with appendfsync always (N): it is fsync-bound,
#                    390 tasks/s here on a quiet disk but 60-70 while another job wrote to it
#   SLOTS            tasks one worker runs at once (4): Taskboard --slots, Celery --concurrency,
#                    Dask --nthreads
#   WIDE_SLOTS       slots of the worker in Taskboard's last row (64, as tools/bench/scheduler_bench)
#   LATENCY_SAMPLES  single-task round trips timed per configuration (20, after 3 warm-ups)
#   POLL_MS          Taskboard's completion poll interval in `poll` rows (100)
#   SYSTEMS          comma-separated subset of taskboard,celery,dask
#   RESULTS          also keep the raw JSON lines in this file
#
# Not part of the test suite: it installs Debian packages and takes minutes.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(git -C "$HERE" rev-parse --show-toplevel)"
BUILD_DIR="${BUILD_DIR:-build}"
case "$BUILD_DIR" in
  /*) BUILT="$BUILD_DIR/bin" ;;
  *) BUILT="$ROOT/$BUILD_DIR/bin" ;;
esac
N="${N:-10000}"
REPS="${REPS:-3}"
SLOTS="${SLOTS:-4}"
LATENCY_SAMPLES="${LATENCY_SAMPLES:-20}"
POLL_MS="${POLL_MS:-100}"
SLOW_N="${SLOW_N:-$N}"
WIDE_SLOTS="${WIDE_SLOTS:-64}"
# Items of the map phase in flight at once (the phase's `concurrency`), as in
# tools/bench/scheduler_bench. Not N: with every item in flight, a map ran at a third of the
# rate here (about 800 tasks/s against 2,100 at N=10000), the scheduler's per-batch work
# growing with the items in flight.
MAP_IN_FLIGHT=64
SYSTEMS="${SYSTEMS:-taskboard,celery,dask}"
# Debian's interpreter, not whatever python3 is first on PATH (pyenv, a venv): the peers are
# Debian packages and only /usr/bin/python3 sees them.
PY=/usr/bin/python3
# Keep the checkout clean of __pycache__ directories.
export PYTHONDONTWRITEBYTECODE=1

for tool in taskboard taskboard-scheduler taskboard-worker; do
  if [[ ! -x "$BUILT/$tool" ]]; then
    echo "run.sh: $BUILT/$tool not found; build with ./scripts/build.sh --main or set BUILD_DIR" >&2
    exit 2
  fi
done

want() { [[ ",$SYSTEMS," == *",$1,"* ]]; }

# --- peers from Debian's archive --------------------------------------------------------------

install_peers() {
  local packages=(redis-server python3-celery python3-redis python3-distributed)
  local missing=() package
  for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    sudo=(sudo)
  fi
  echo "installing ${missing[*]} (apt)" >&2
  "${sudo[@]}" apt-get update -qq
  # Without recommends: Dask's dashboard (bokeh) and the like are not needed and not measured.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

if want celery || want dask; then
  install_peers
fi

# --- processes and clean-up --------------------------------------------------------------------

WORK="$(mktemp -d -t taskboard-peers.XXXXXX)"
RESULTS_FILE="$WORK/results.jsonl"
PIDS=()
LAST_PID=

# Every server runs in its own session (setsid), so its pid is also its process group and one
# signal reaches the children it forks (Celery's pool, Dask's nanny and worker).
start() {
  local name=$1
  shift
  setsid "$@" >"$WORK/$name.log" 2>&1 </dev/null &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}

# A group is alive while one of its members is not a zombie (an exited child we have not yet
# reaped still answers kill -0).
group_alive() {
  ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

# SIGTERM the group, give it 15 s to shut down cleanly, then SIGKILL what is left.
stop_group() {
  local pid=$1 _
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 150); do
    group_alive "$pid" || break
    sleep 0.1
  done
  if group_alive "$pid"; then
    echo "run.sh: process group $pid ignored SIGTERM; killing it" >&2
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# Stops every server started so far, the last started first (workers before their scheduler).
stop_all() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    stop_group "${PIDS[i]}"
  done
  PIDS=()
}

# Drivers (the clients) run in the background and are waited for: bash runs a trap only
# between foreground commands, so a SIGINT or SIGTERM would otherwise wait for the batch.
DRIVER_PID=
run_driver() {
  "$@" &
  DRIVER_PID=$!
  local status=0
  wait "$DRIVER_PID" || status=$?
  DRIVER_PID=
  return "$status"
}

cleanup() {
  if [[ -n "$DRIVER_PID" ]]; then
    kill -TERM "$DRIVER_PID" 2>/dev/null || true
    wait "$DRIVER_PID" 2>/dev/null || true
  fi
  stop_all
  if [[ -n "${RESULTS:-}" && -s "$RESULTS_FILE" ]]; then
    cp "$RESULTS_FILE" "$RESULTS"
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Which source the Taskboard binaries come from: the checkout that holds BUILD_DIR, its commit,
# and its uncommitted changes, judged by time against the scheduler binary (a checkout being
# worked on moves on after a build, and the commit alone would then misdescribe the binaries).
describe_binaries() {
  local built commit file newer=0 older=0 status
  built="$(stat -c %Y "$BUILT/taskboard-scheduler")"
  commit="$(git -C "$BUILT" rev-parse --short HEAD 2>/dev/null)" || {
    echo "not in a git checkout"
    return
  }
  status="$commit"
  if (("$(git -C "$BUILT" log -1 --format=%ct HEAD)" > built)); then
    status="$status (committed after the build)"
  fi
  local top
  top="$(git -C "$BUILT" rev-parse --show-toplevel)"
  while IFS= read -r file; do
    if (("$(stat -c %Y "$top/$file" 2>/dev/null || echo 0)" > built)); then
      newer=$((newer + 1))
    else
      older=$((older + 1))
    fi
  done < <(git -C "$top" diff --name-only HEAD 2>/dev/null)
  if ((older > 0)); then
    status="$status + uncommitted changes older than the build"
  fi
  if ((newer > 0)); then
    status="$status; $newer uncommitted file(s) changed after the build (not in it)"
  fi
  echo "$status"
}

# Run copies of the binaries, so a rebuild of BUILD_DIR while the benchmark runs cannot swap a
# binary between configurations (or under a running process).
BIN="$WORK/bin"
mkdir -p "$BIN"
cp "$BUILT/taskboard" "$BUILT/taskboard-scheduler" "$BUILT/taskboard-worker" "$BIN/"
BINARIES_BUILT="$(date -u -r "$BUILT/taskboard-scheduler" '+%Y-%m-%d %H:%M UTC')"
BINARIES_FROM="$(describe_binaries)"

# Two cores are easily shared by accident (a build, a test run): say so up front.
read -r LOAD _ </proc/loadavg
if awk -v l="$LOAD" 'BEGIN { exit !(l > 0.5) }'; then
  echo "run.sh: warning: 1-minute load average is $LOAD before starting; figures will be low" >&2
fi

# wait_for SECONDS WHAT COMMAND...: retry COMMAND until it succeeds; on timeout show the logs.
wait_for() {
  local deadline=$((SECONDS + $1)) what=$2 log
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "run.sh: timed out waiting for $what" >&2
      for log in "$WORK"/*.log; do
        echo "--- $log" >&2
        tail -n 20 "$log" >&2
      done
      exit 1
    fi
    sleep 0.1
  done
}

# Arguments every driver takes.
DRIVER_ARGS=(--reps "$REPS" --latency-samples "$LATENCY_SAMPLES" --results "$RESULTS_FILE")

# --- Taskboard ---------------------------------------------------------------------------------

taskboard_worker_connected() {
  [[ "$("$BIN/taskboard" workers --scheduler "$1" | wc -l)" -ge 2 ]]  # a header and the worker
}

# run_taskboard LABEL DURABILITY SHAPE WAIT WORKER_SLOTS [reference]
run_taskboard() {
  local label=$1 durability=$2 shape=$3 wait=$4 slots=$5 reference=${6:-}
  local dir="$WORK/taskboard"
  rm -rf "$dir"
  mkdir -p "$dir"
  # The per-run limits default to 10,000; raise them for larger N.
  local limit=$((N > 10000 ? N : 10000))
  start taskboard-scheduler "$BIN/taskboard-scheduler" --listen 127.0.0.1:0 \
    --port-file "$dir/port" --data-dir "$dir/db" --durability "$durability" \
    --max-tasks-per-run "$limit" --max-items-per-phase "$limit" --log-level warn
  local scheduler=$LAST_PID
  wait_for 30 "taskboard-scheduler" test -s "$dir/port"
  local address
  address="127.0.0.1:$(cat "$dir/port")"
  start taskboard-worker "$BIN/taskboard-worker" --scheduler "$address" --slots "$slots" \
    --data-dir "$dir/worker" --log-level warn
  local worker=$LAST_PID
  wait_for 30 "taskboard-worker to connect" taskboard_worker_connected "$address"
  echo "Taskboard: $label" >&2
  run_driver "$PY" "$HERE/taskboard_driver.py" --system Taskboard --config "$label" --n "$N" \
    "${DRIVER_ARGS[@]}" \
    --pid "scheduler=$scheduler" --pid "worker=$worker" ${reference:+--reference} \
    --cli "$BIN/taskboard" --scheduler "$address" --shape "$shape" --wait "$wait" \
    --poll-ms "$POLL_MS" --map-concurrency "$MAP_IN_FLIGHT" --workdir "$dir"
  stop_all
  rm -rf "$dir"
}

# --- Celery 5 + Redis --------------------------------------------------------------------------

redis_ready() {
  [[ "$(redis-cli -p "$1" ping 2>/dev/null)" == PONG ]]
}

# run_celery LABEL TASKS APPENDFSYNC POOL PREFETCH ACKS_LATE
run_celery() {
  local label=$1 tasks=$2 appendfsync=$3 pool=$4 prefetch=$5 acks_late=$6
  local dir="$WORK/celery"
  rm -rf "$dir"
  mkdir -p "$dir"
  local port
  port="$(PYTHONPATH="$HERE" "$PY" -c 'import harness; print(harness.free_port())')"
  # Append-only file on, RDB snapshots off: every write goes to the AOF, fsynced per
  # `appendfsync` (everysec ~ Taskboard's wal, always ~ sync). Queue and results share it.
  start redis redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" \
    --appendonly yes --appendfsync "$appendfsync" --daemonize no --logfile ""
  local broker=$LAST_PID
  wait_for 30 "redis-server" redis_ready "$port"
  export PEERS_REDIS_URL="redis://127.0.0.1:$port" PEERS_PREFETCH="$prefetch"
  export PEERS_ACKS_LATE="$acks_late"
  # No gossip, mingle or heartbeat: they exchange messages with other workers (there are none)
  # and cost broker traffic; Celery's docs recommend turning them off for throughput.
  start celery-worker env PYTHONPATH="$HERE" "$PY" -m celery -A celery_app worker \
    --pool "$pool" --concurrency "$SLOTS" --without-gossip --without-mingle --without-heartbeat \
    --loglevel WARNING
  local worker=$LAST_PID
  echo "Celery: $label" >&2
  # The driver's warm-up tasks wait for the worker to come up.
  run_driver "$PY" "$HERE/celery_driver.py" --system "Celery 5 + Redis" --config "$label" \
    --n "$tasks" "${DRIVER_ARGS[@]}" --pid "scheduler=$broker" --pid "worker=$worker"
  stop_all
  rm -rf "$dir"
}

# --- Dask distributed --------------------------------------------------------------------------

# run_dask LABEL SATURATION (empty: Dask's default)
run_dask() {
  local label=$1 saturation=$2
  local dir="$WORK/dask"
  rm -rf "$dir"
  mkdir -p "$dir"
  local scheduler_env=()
  if [[ -n "$saturation" ]]; then
    scheduler_env=("DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION=$saturation")
  fi
  start dask-scheduler env "${scheduler_env[@]}" "$PY" -m distributed.cli.dask_scheduler \
    --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file "$dir/scheduler.json"
  local scheduler=$LAST_PID
  wait_for 60 "dask-scheduler" test -s "$dir/scheduler.json"
  # One worker process (behind Dask's default nanny, which only supervises it) with SLOTS
  # threads.
  start dask-worker env PYTHONPATH="$HERE" "$PY" -m distributed.cli.dask_worker \
    --scheduler-file "$dir/scheduler.json" --nworkers 1 --nthreads "$SLOTS" --no-dashboard \
    --local-directory "$dir/worker"
  local worker=$LAST_PID
  echo "Dask: $label" >&2
  run_driver "$PY" "$HERE/dask_driver.py" --system "Dask distributed" --config "$label" \
    --n "$N" "${DRIVER_ARGS[@]}" --pid "scheduler=$scheduler" --pid "worker=$worker" \
    --scheduler-file "$dir/scheduler.json"
  stop_all
  rm -rf "$dir"
}

# --- the configurations ------------------------------------------------------------------------

if want taskboard; then
  # The reference row first: a board on `wal`, the worker with SLOTS slots like the peers'
  # workers, the scheduler's own rate (poll). Then `sync`, a map phase, a client following the
  # run's events, and a worker with WIDE_SLOTS slots (a deeper pipeline, as the peers' tuned
  # rows have).
  run_taskboard "board, wal, $SLOTS slots, poll" wal board poll "$SLOTS" reference
  run_taskboard "board, sync, $SLOTS slots, poll" sync board poll "$SLOTS"
  run_taskboard "map ($MAP_IN_FLIGHT in flight), wal, $SLOTS slots, poll" wal map poll "$SLOTS"
  run_taskboard "board, wal, $SLOTS slots, follow (taskboard run)" wal board follow "$SLOTS"
  run_taskboard "board, wal, $WIDE_SLOTS slots, poll" wal board poll "$WIDE_SLOTS"
fi
if want celery; then
  # Comparable: Celery's default prefork pool with SLOTS children, acknowledged after running,
  # the default prefetch; then Celery tuned for short tasks (the solo pool runs tasks inline in
  # the one process, a deep prefetch); then every write fsynced, like Taskboard's sync
  # (fsync-bound, see SLOW_N). Not the threads pool: its worker stalled for 4-20 s in about
  # one batch in six here (README.md).
  run_celery "prefork x$SLOTS, acks_late, prefetch 4, AOF everysec" "$N" everysec prefork 4 1
  run_celery "solo, acks_late, prefetch 64, AOF everysec" "$N" everysec solo 64 1
  run_celery "prefork x$SLOTS, acks_late, prefetch 4, AOF always" "$SLOW_N" always prefork 4 1
fi
if want dask; then
  run_dask "$SLOTS threads, defaults (worker-saturation 1.1)" ""
  run_dask "$SLOTS threads, worker-saturation inf" inf
fi

echo
echo "Peers benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD) (this checkout);" \
  "Taskboard binaries: $BUILT (built $BINARIES_BUILT from $BINARIES_FROM);" \
  "$(nproc) cores, $(uname -sr)"
versions="$("$PY" -c 'import celery, distributed, redis; print(f"Celery {celery.__version__}, Dask distributed {distributed.__version__}, redis-py {redis.__version__}")' 2>/dev/null || true)"
if command -v redis-server >/dev/null; then
  versions="$versions, $(redis-server --version | awk '{print $1, $3}' | sed 's/v=//')"
fi
if [[ -n "$versions" ]]; then
  echo "$versions"
fi
echo
"$PY" "$HERE/report.py" "$RESULTS_FILE"
