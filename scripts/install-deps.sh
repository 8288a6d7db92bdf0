#!/usr/bin/env bash
# Installs everything Taskboard needs to build, test and run on Debian 12:
# the compiler toolchain, the libraries (all from Debian's archive) and buf
# (from the npm registry, into tools/buf). Safe to re-run: it installs only
# what is missing. Needs root (or sudo) for apt.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # toolchain: clang builds everything (and the libFuzzer targets), Ninja + ccache
  build-essential clang libclang-rt-14-dev cmake ninja-build ccache pkg-config git
  # the fixed dependencies: gRPC, Protobuf, Abseil, RocksDB, GoogleTest/Mock, Benchmark
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  librocksdb-dev libgtest-dev libgmock-dev libbenchmark-dev
  # JSON, YAML, command line, HTTP client and server, SHA-256 (see README "Dependencies")
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcurl4-openssl-dev libcpp-httplib-dev
  libssl-dev
  # scripts and tests (prometheus: its promtool checks our /metrics exposition)
  python3 curl prometheus
)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# Node.js runs buf's npm package; keep an existing installation (e.g. NodeSource).
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -x tools/buf/node_modules/.bin/buf ]]; then
  echo "install-deps: installing buf into tools/buf"
  # Exact version pinned in package.json; no lockfile (npm here writes one
  # that omits the other platforms' binaries, which `npm ci` then rejects).
  npm install --prefix tools/buf --no-package-lock --no-audit --no-fund --loglevel=error
fi
echo "install-deps: done"
