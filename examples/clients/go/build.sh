#!/usr/bin/env bash
# Builds the Go example client offline, from Debian's Go packages only (no module proxy):
#
#   examples/clients/go/build.sh OUT_DIR     -> OUT_DIR/submit_and_watch
#
# The stubs are generated into OUT_DIR/gopath/src/taskboard.dev/api/taskboard/v1 and the
# client is built in GOPATH mode (GO111MODULE=off) against /usr/share/gocode, where
# golang-google-grpc-dev, golang-google-protobuf-dev and golang-github-golang-protobuf-1-5-dev
# put gRPC and protobuf. (golang-github-golang-protobuf-1-3-dev, which apt picks for gRPC by
# default, cannot marshal the messages protoc-gen-go 1.28 generates: the client panics in
# SubmitRun.)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: go not found: run scripts/install-deps.sh --test (Debian package golang-go)" >&2
  exit 1
fi

"$here/../gen_stubs.sh" go "$out/gopath"
cd "$here"
GOPATH="$out/gopath:/usr/share/gocode" GO111MODULE=off GOFLAGS='' GOCACHE="$out/gocache" \
  go build -o "$out/submit_and_watch" .
echo "build.sh: $out/submit_and_watch"
