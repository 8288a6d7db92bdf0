#!/usr/bin/env bash
# Configures (once) and builds everything in build/: services, CLI, tests,
# fuzzers. One configuration: clang, Ninja, ccache, warnings as errors.
# BUILD_DIR and JOBS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-2}
# Let ccache share results between checkouts in different directories (CI
# builds a fresh clone): paths are hashed relative to the checkout.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
if [[ ! -f "$build_dir/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTASKBOARD_WERROR=ON
fi
cmake --build "$build_dir" -j "$jobs"
