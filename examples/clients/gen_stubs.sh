#!/usr/bin/env bash
# Generates the Taskboard API stubs for one example client into OUT (never committed):
#
#   examples/clients/gen_stubs.sh python OUT   OUT/taskboard/v1/*_pb2.py, *_pb2_grpc.py
#                                               (run the Python examples with PYTHONPATH=OUT)
#   examples/clients/gen_stubs.sh go OUT       OUT/src/taskboard.dev/api/taskboard/v1/*.pb.go
#                                               (a GOPATH root: GOPATH=OUT:/usr/share/gocode)
#
# Node needs no stubs: @grpc/proto-loader reads proto/ at start-up.
#
# Everything comes from Debian 12 (scripts/install-deps.sh --test): protoc 3.21 (protobuf-compiler),
# grpc_python_plugin (protobuf-compiler-grpc), protoc-gen-go and protoc-gen-go-grpc. Debian's
# python3-grpc-tools is not used: it bundles protoc 3.5, which rejects the `optional` fields
# of flow.proto. google/rpc/status.proto is not generated: no taskboard proto imports it
# (Go has it as google.golang.org/genproto/googleapis/rpc/status).
set -euo pipefail

if [[ $# -ne 2 || ( $1 != python && $1 != go ) ]]; then
  echo "usage: $0 python|go OUT_DIR" >&2
  exit 2
fi
language=$1
out=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
protos=("$root"/proto/taskboard/v1/*.proto)

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "gen_stubs: $1 not found: run scripts/install-deps.sh --test (Debian package $2)" >&2
    exit 1
  fi
}

need protoc protobuf-compiler
case $language in
  python)
    need grpc_python_plugin protobuf-compiler-grpc
    mkdir -p "$out"
    protoc -I "$root/proto" --python_out="$out" --grpc_out="$out" \
      --plugin=protoc-gen-grpc="$(command -v grpc_python_plugin)" "${protos[@]}"
    ;;
  go)
    need protoc-gen-go protoc-gen-go
    need protoc-gen-go-grpc protoc-gen-go-grpc
    # go_package is taskboard.dev/api/taskboard/v1: the default (import) paths lay the
    # files out as a GOPATH package under OUT/src.
    mkdir -p "$out/src"
    protoc -I "$root/proto" --go_out="$out/src" --go-grpc_out="$out/src" "${protos[@]}"
    ;;
esac
echo "gen_stubs: $language stubs in $out"
