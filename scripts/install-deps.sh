#!/usr/bin/env bash
# Installs what Taskboard needs on Debian 12, from Debian's archive and (for
# the web console and, with --test, buf and the test clients) the npm registry.
#   scripts/install-deps.sh         what the main job needs: the toolchain, the
#                                   libraries the scheduler, worker and CLI link,
#                                   Node.js and the web console's packages (the
#                                   scheduler embeds the console's bundle)
#   scripts/install-deps.sh --test  that, plus what the test suite needs: GoogleTest,
#                                   Benchmark, the fuzzers' runtime, chromium,
#                                   Prometheus, etcd, kubectl, the Python/Go/Node clients'
#                                   packages, buf, the manifest validator and the
#                                   OTLP interop test's OpenTelemetry packages
# Safe to re-run: it installs only what is missing. Needs root (or sudo) for apt.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/install-deps.sh [--test]"; }
with_tests=false
case ${1:-} in
  '') ;;
  --test) with_tests=true ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
if [[ $# -gt 1 ]]; then usage >&2; exit 2; fi

# The first command's set: every package here is on the path from a fresh
# machine to `scripts/build.sh --main && scripts/demo.sh`, so each one costs
# the first run download and unpack time (docs/performance.md#first-run).
packages=(
  # toolchain: clang (it pulls libstdc++, libc6-dev and binutils; gcc is not needed),
  # Ninja + ccache
  clang cmake ninja-build ccache pkg-config git
  # the fixed dependencies: gRPC, Protobuf, Abseil, RocksDB
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  librocksdb-dev
  # JSON, YAML, command line, HTTP client and server, SHA-256 (see README "Dependencies")
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcurl4-openssl-dev libcpp-httplib-dev
  libssl-dev
  # the services' HTTP front door: event-driven, bounded per client (common/http)
  libmicrohttpd-dev
  # jemalloc: the scheduler and worker allocate per task; glibc's malloc cost them a
  # third more CPU (docs/performance.md)
  libjemalloc-dev
  # the example tools (examples/tools/http_get.sh) fetch with curl
  curl
  # IANA time zones: schedules' cron expressions read them through absl::LoadTimeZone
  # (docs/schedules.md); minimal images often lack /usr/share/zoneinfo
  tzdata
)
# Only the test suite, the benchmarks and the fuzzers use these.
test_packages=(
  # gcc/g++ and make: cgo in the Go client's build
  build-essential
  # GoogleTest/Mock, Google Benchmark; the libFuzzer and sanitizer runtime for the fuzzers
  libgtest-dev libgmock-dev libbenchmark-dev libclang-rt-14-dev
  # scripts and tests (prometheus: promtool lints /metrics; prometheus_server_test runs the server)
  python3 prometheus
  # the openssl CLI: tls_test makes its CA, server and client certificates with it
  openssl
  # etcd 3.4 (/usr/bin/etcd): the HA tests (label ha) start their own 3-member clusters on
  # free loopback ports (on a systemd host the package also enables an etcd service on
  # localhost:2379, which the tests do not use: `systemctl disable --now etcd` stops it).
  # Not golang-etcd-server-dev: it would replace the Go protobuf packages (and break the
  # protoc-gen-go) the Go client test builds with.
  etcd-server
  # headless chromium: the web console's browser test (console.browser, label web) drives it
  chromium
  # polyglot example clients (examples/clients, run by the e2e tests): gRPC for Debian's
  # python3; Go and its gRPC/protobuf sources, built offline in GOPATH mode (the 1-5
  # golang/protobuf, not the 1-3 one apt picks for gRPC: that one cannot marshal messages
  # from protoc-gen-go 1.28); the Go stub generators. Python stubs use protoc +
  # grpc_python_plugin (above): python3-grpc-tools bundles protoc 3.5, which rejects
  # flow.proto's `optional` fields.
  python3-grpcio python3-protobuf golang-go golang-google-grpc-dev golang-google-protobuf-dev
  golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
)
if $with_tests; then packages+=("${test_packages[@]}"); fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# Node.js bundles the web console (esbuild) and runs buf and the JS tests; keep an
# existing installation (e.g. NodeSource).
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
# kubectl renders deploy/ (`kubectl kustomize`, tested by deploy.manifests); keep an existing
# one. Debian 12's kubernetes-client (kubectl 1.20, kustomize v2.0.3) is enough: the overlays
# need kubectl 1.20 or newer (deploy/README.md#kubectl-versions).
if $with_tests && ! command -v kubectl >/dev/null 2>&1; then missing+=(kubernetes-client); fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -f web/console/node_modules/.package-lock.json ]] ||
  ! cmp -s web/console/package-lock.json web/console/node_modules/.lock-installed; then
  echo "install-deps: installing the web console's packages into web/console"
  # TypeScript, esbuild, Preact, dagre and puppeteer-core, as web/console/package-lock.json pins
  # them; scripts/build.sh bundles the console into the scheduler.
  npm ci --prefix web/console --no-audit --no-fund --loglevel=error
  cp web/console/package-lock.json web/console/node_modules/.lock-installed
fi

if $with_tests; then
  if [[ ! -x tools/buf/node_modules/.bin/buf ]]; then
    echo "install-deps: installing buf into tools/buf"
    # Exact version pinned in package.json; no lockfile (npm here writes one
    # that omits the other platforms' binaries, which `npm ci` then rejects).
    npm install --prefix tools/buf --no-package-lock --no-audit --no-fund --loglevel=error
  fi
  if [[ ! -d examples/clients/node/node_modules/@grpc/proto-loader ]]; then
    echo "install-deps: installing the Node example client's gRPC into examples/clients/node"
    # @grpc/grpc-js and @grpc/proto-loader, exact versions pinned in its package.json.
    npm install --prefix examples/clients/node --no-package-lock --no-audit --no-fund --loglevel=error
  fi
  if [[ ! -f tests/mcp/sdk_client/node_modules/.lock-installed ]] ||
    ! cmp -s tests/mcp/sdk_client/package-lock.json tests/mcp/sdk_client/node_modules/.lock-installed; then
    echo "install-deps: installing the MCP TypeScript SDK client into tests/mcp/sdk_client"
    # @modelcontextprotocol/sdk 1.x, as tests/mcp/sdk_client/package-lock.json pins it.
    npm ci --prefix tests/mcp/sdk_client --no-audit --no-fund --loglevel=error
    cp tests/mcp/sdk_client/package-lock.json tests/mcp/sdk_client/node_modules/.lock-installed
  fi
  if [[ ! -f tests/mcp/servers/node_modules/.lock-installed ]] ||
    ! cmp -s tests/mcp/servers/package-lock.json tests/mcp/servers/node_modules/.lock-installed; then
    echo "install-deps: installing the MCP reference servers into tests/mcp/servers"
    # @modelcontextprotocol/server-everything and server-filesystem, as
    # tests/mcp/servers/package-lock.json pins them (the `mcp` tests, docs/mcp.md).
    npm ci --prefix tests/mcp/servers --no-audit --no-fund --loglevel=error
    cp tests/mcp/servers/package-lock.json tests/mcp/servers/node_modules/.lock-installed
  fi
  if [[ ! -f deploy/test/node_modules/.package-versions ]] ||
    ! cmp -s deploy/test/package.json deploy/test/node_modules/.package-versions; then
    echo "install-deps: installing the manifest validator's packages into deploy/test"
    # kubernetes-models (+ KEDA, Prometheus Operator) and yaml, exact versions in package.json.
    npm install --prefix deploy/test --no-package-lock --no-audit --no-fund --loglevel=error
    cp deploy/test/package.json deploy/test/node_modules/.package-versions
  fi
  if [[ ! -f tests/otel/node_modules/.package-lock.json ]] ||
    ! cmp -s tests/otel/package-lock.json tests/otel/node_modules/.lock-installed; then
    echo "install-deps: installing the OTLP interop test's OpenTelemetry packages into tests/otel"
    # @opentelemetry/otlp-transformer (the official OTLP decoders), sdk-trace-base, core and
    # api, as tests/otel/package-lock.json pins them (pure JavaScript: one lockfile fits
    # every platform, so `npm ci`, as for web/console).
    npm ci --prefix tests/otel --no-audit --no-fund --loglevel=error
    cp tests/otel/package-lock.json tests/otel/node_modules/.lock-installed
  fi
fi
echo "install-deps: done"
