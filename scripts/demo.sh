#!/usr/bin/env bash
# The main job: checks the example flows with the taskboard CLI and prints the
# DAG of the repo digest. (Running flows end to end on an embedded scheduler
# and worker arrives with `taskboard dev` / `taskboard run`.)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/bin/taskboard
for flow in examples/flows/*.yaml examples/flows/*.json; do
  [[ $(basename "$flow") == broken.json ]] && continue
  "$bin" validate --quiet "$flow" | head -1
done
echo
"$bin" validate examples/flows/repo-digest.yaml
echo
echo "An intentionally broken flow, for comparison:"
"$bin" validate examples/flows/broken.json || true
