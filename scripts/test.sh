#!/usr/bin/env bash
# Builds and runs the whole test suite with CTest (labels: unit, integration,
# e2e, chaos; the fuzzer runs for TASKBOARD_FUZZ_SECONDS, default 60).
# Extra arguments go to ctest, e.g. `scripts/test.sh -L unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${JOBS:-2}" "$@"
