#!/usr/bin/env bash
# Runs the Go example client's tests (leader_test.go) offline, like build.sh builds it:
#
#   examples/clients/go/test.sh OUT_DIR     (after build.sh OUT_DIR generated the stubs)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
out="$(cd "$1" && pwd)"
if [[ ! -d "$out/gopath/src/taskboard.dev/api/taskboard/v1" ]]; then
  echo "test.sh: no stubs in $out/gopath: run build.sh $1 first (ctest fixture clients.go_build)" >&2
  exit 1
fi
cd "$here"
GOPATH="$out/gopath:/usr/share/gocode" GO111MODULE=off GOFLAGS='' GOCACHE="$out/gocache" \
  go test -count=1 .
