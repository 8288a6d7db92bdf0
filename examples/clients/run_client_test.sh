#!/usr/bin/env bash
# End-to-end check of one example client against a live cluster (the CTest tests in
# examples/clients/CMakeLists.txt):
#
#   run_client_test.sh --bin-dir DIR [--worker cpp|python] [--expect-status STATUS]
#                      [--expect-output TEXT] [--scheduling-timeout-ms MS] [--drain-worker]
#                      -- CLIENT_COMMAND...
#
# Starts taskboard-scheduler (port 0, port file, temporary data directory) and one worker
# (the C++ taskboard-worker, or examples/clients/python/worker.py: PYTHONPATH must hold its
# stubs), runs CLIENT_COMMAND --address 127.0.0.1:PORT, and checks what a user relies on:
# the exit status (0 iff the run completed), events numbered 1..N ending in run_finished,
# `result: STATUS` and `output: TEXT`. --drain-worker then sends the worker SIGTERM: it must
# drain and exit 0. Everything started is stopped, and the directory removed, on exit.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
bin_dir=""
worker_kind=cpp
expect_status=RUN_STATUS_COMPLETED
expect_output=""
scheduling_timeout_ms=60000
drain_worker=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin-dir) bin_dir=$2; shift 2 ;;
    --worker) worker_kind=$2; shift 2 ;;
    --expect-status) expect_status=$2; shift 2 ;;
    --expect-output) expect_output=$2; shift 2 ;;
    --scheduling-timeout-ms) scheduling_timeout_ms=$2; shift 2 ;;
    --drain-worker) drain_worker=1; shift ;;
    --) shift; break ;;
    *) echo "run_client_test: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $bin_dir || $# -eq 0 ]]; then
  echo "usage: $0 --bin-dir DIR [options] -- CLIENT_COMMAND..." >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/taskboard-client-test.XXXXXX")"
scheduler_pid=""
worker_pid=""

fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/*.log; do
    [[ -f $log ]] || continue
    echo "----- $(basename "$log") (last 40 lines)" >&2
    tail -n 40 "$log" >&2
  done
  exit 1
}

# stop PID TIMEOUT_S: SIGTERM, then SIGKILL if it is still there after TIMEOUT_S.
stop() {
  local pid=$1 deadline=$((SECONDS + $2))
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  [[ -n $worker_pid ]] && stop "$worker_pid" 10
  [[ -n $scheduler_pid ]] && stop "$scheduler_pid" 10
  rm -rf "$work"
}
trap cleanup EXIT

"$bin_dir/taskboard-scheduler" --listen 127.0.0.1:0 --data-dir "$work/data" \
  --durability wal --port-file "$work/scheduler.port" \
  --scheduling-timeout-ms "$scheduling_timeout_ms" >"$work/scheduler.log" 2>&1 &
scheduler_pid=$!
deadline=$((SECONDS + 30))
until [[ -s $work/scheduler.port ]]; do
  kill -0 "$scheduler_pid" 2>/dev/null || fail "the scheduler exited before serving"
  ((SECONDS < deadline)) || fail "the scheduler wrote no port file within 30 s"
  sleep 0.05
done
address="127.0.0.1:$(cat "$work/scheduler.port")"

case $worker_kind in
  cpp)
    "$bin_dir/taskboard-worker" --scheduler "$address" --worker-id cpp-worker \
      --workdir "$work" >"$work/worker.log" 2>&1 &
    ;;
  python)
    /usr/bin/python3 "$here/python/worker.py" --scheduler "$address" --worker-id py-worker \
      --drain-grace-seconds 5 >"$work/worker.log" 2>&1 &
    ;;
  *) echo "run_client_test: --worker is cpp or python" >&2; exit 2 ;;
esac
worker_pid=$!

# The run waits for the worker to connect (up to --scheduling-timeout-ms): no sleep needed.
set +e
"$@" --address "$address" >"$work/client.log" 2>&1
client_status=$?
set -e
cat "$work/client.log"

want_exit=1
[[ $expect_status == RUN_STATUS_COMPLETED ]] && want_exit=0
((client_status == want_exit)) ||
  fail "the client exited $client_status, expected $want_exit for a $expect_status run"
grep -qx "result: $expect_status" "$work/client.log" ||
  fail "no line 'result: $expect_status' in the client's output"
if [[ -n $expect_output ]]; then
  grep -qxF "output: $expect_output" "$work/client.log" ||
    fail "no line 'output: $expect_output' in the client's output"
fi
# Events: one line each, numbered 1..N without gaps, the last one run_finished.
seqs="$(sed -n 's/^event \([0-9][0-9]*\) .*/\1/p' "$work/client.log")"
[[ -n $seqs ]] || fail "the client printed no events"
[[ $seqs == "$(seq 1 "$(wc -l <<<"$seqs")")" ]] || fail "events are not numbered 1..N: $seqs"
grep '^event ' "$work/client.log" | tail -n 1 | grep -q " run_finished $expect_status\$" ||
  fail "the last event is not 'run_finished $expect_status'"
# Every run adds tasks, and a client names the kind that announces them (with their count).
grep -q '^event [0-9]* tasks_created [1-9]' "$work/client.log" || fail "no tasks_created event"
if [[ $expect_status == RUN_STATUS_COMPLETED ]]; then
  grep -q '^event [0-9]* task_change ' "$work/client.log" || fail "no task_change event"
fi

if ((drain_worker)); then
  kill -TERM "$worker_pid"
  deadline=$((SECONDS + 15))
  while kill -0 "$worker_pid" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "the worker did not exit within 15 s of SIGTERM"
    sleep 0.05
  done
  set +e
  wait "$worker_pid"
  worker_status=$?
  set -e
  worker_pid=""
  ((worker_status == 0)) || fail "the worker exited $worker_status after SIGTERM, expected 0"
  grep -q '"drained; exiting"' "$work/worker.log" || fail "the worker did not log its drain"
fi
echo "PASS"
