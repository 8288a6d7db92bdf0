#!/usr/bin/env bash
# Rewrites proto/api-image.binpb, the image of the v1 API that `buf breaking` (the CTest
# test proto.buf_breaking) compares proto/ against.
#
# Run it only to accept an API change on purpose: after an additive change (new fields,
# messages, enum values, RPCs; buf breaking passes either way) when the change is released,
# or never for a breaking one (that belongs in taskboard.v2, docs/api.md "Versioning").
# Commit the new image together with the .proto change it records.
set -euo pipefail
cd "$(dirname "$0")/../proto"
buf=../tools/buf/node_modules/.bin/buf
if [[ ! -x $buf ]]; then
  echo "update-api-image: $buf not found: run scripts/install-deps.sh --test" >&2
  exit 1
fi
"$buf" lint
# Source info (comments, positions) is left out: breaking checks do not use it, and it
# would make every comment edit rewrite the image.
"$buf" build --exclude-source-info -o api-image.binpb
echo "update-api-image: wrote proto/api-image.binpb ($(wc -c <api-image.binpb) bytes)"
