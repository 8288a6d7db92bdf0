#!/usr/bin/env bash
# Configures (once) and builds in build/: everything (services, CLI, tests,
# fuzzers, benchmarks), or with --main only what the main job runs (the
# scheduler, the worker and the `taskboard` CLI), which is about half the
# compile steps. One configuration: clang, Ninja, ccache, warnings as errors.
# BUILD_DIR and JOBS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-2}
targets=()
if [[ ${1:-} == --main ]]; then
  targets=(taskboard taskboard-scheduler taskboard-worker)
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/build.sh [--main]" >&2
  exit 2
fi
# Let ccache share results between checkouts in different directories (CI
# builds a fresh clone): paths are hashed relative to the checkout.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
if [[ ! -f "$build_dir/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTASKBOARD_WERROR=ON
elif ((${#targets[@]} == 0)) &&
  grep -qE '^((GTest|benchmark)_DIR:PATH|[A-Za-z0-9_]+_(PROGRAM|EXECUTABLE):FILEPATH)=.*-NOTFOUND$' \
    "$build_dir/CMakeCache.txt"; then
  # Configured by the first run, before `install-deps.sh --test` installed
  # GoogleTest, Benchmark and the tools some tests run (buf, promtool, ...):
  # configure again so those tests find them (CMake looks again for what it
  # did not find).
  cmake "$build_dir" >/dev/null
fi
cmake --build "$build_dir" -j "$jobs" ${targets[@]+--target "${targets[@]}"}
