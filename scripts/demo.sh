#!/usr/bin/env bash
# The main job: runs the repo-digest example end to end on the embedded
# default (`taskboard dev`: a local scheduler with RocksDB and one worker on
# localhost, command agents from examples/agents, no API key).
#
# You see the live DAG render (on a terminal it redraws in place), then the
# digest. Every summarizer reads README.md through the worker's read_file tool
# (`taskboard tool`): the first read runs, the others are answered by the
# scheduler's shared tool cache, and the render counts them in its header
# (`tools 40 · cached 39`) and on the summarize row. Exit code 0 only when the
# run completed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/bin
dir=$(mktemp -d "${TMPDIR:-/tmp}/taskboard-demo.XXXXXX")
dev_pid=
cleanup() {
  if [[ -n $dev_pid ]]; then kill -INT "$dev_pid" 2>/dev/null || true; wait "$dev_pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

"$bin/taskboard" dev --data-dir "$dir" --listen 127.0.0.1:0 --agents examples/agents \
  --ready-file "$dir/address" >"$dir/dev.out" 2>&1 &
dev_pid=$!
for _ in $(seq 300); do
  [[ -s $dir/address ]] && break
  kill -0 "$dev_pid" 2>/dev/null || { cat "$dir/dev.out"; exit 1; }
  sleep 0.1
done
[[ -s $dir/address ]] || { echo "taskboard dev did not start:"; cat "$dir/dev.out"; exit 1; }
export TASKBOARD_SCHEDULER=$(cat "$dir/address")

echo "Taskboard dev: scheduler and worker on $TASKBOARD_SCHEDULER"
# The web console (docs/console.md) is served while the demo runs.
sed -n 's/^  console *\(http[^ ]*\).*/Web console: \1 (open it to watch the run)/p' "$dir/dev.out"
echo "\$ taskboard run examples/flows/repo-digest.yaml dir=scheduler"
echo
"$bin/taskboard" run examples/flows/repo-digest.yaml dir=scheduler
