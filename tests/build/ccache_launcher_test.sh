#!/usr/bin/env bash
# cmake/ccache_launcher.sh keeps checkout paths out of what ccache hashes for
# precompiled headers, so a second checkout of the same tree builds from the
# cache: equal trees in two directories give equal .pch.sum files, a changed
# header gives a new one, and the .pch's header reaches ccache by a relative path.
# usage: ccache_launcher_test.sh LAUNCHER CXX
set -euo pipefail
launcher=$1 cxx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A checkout at $1 with header text $2; prints the .pch.sum its launcher writes.
pch_sum() {
  local root=$1
  mkdir -p "$root/inc" "$root/build"
  printf '%s\n' "$2" >"$root/inc/h.h"
  printf '#include <h.h>\n' >"$root/build/cmake_pch.hxx"
  printf '\n' >"$root/build/cmake_pch.hxx.cxx"
  (cd "$root/build" && "$launcher" /bin/false "$root" "$root/build" "$cxx" -I"$root/inc" \
    -Xclang -emit-pch -Xclang -include -Xclang "$root/build/cmake_pch.hxx" -x c++-header \
    -MD -MT p.pch -MF p.pch.d -o p.pch -c "$root/build/cmake_pch.hxx.cxx")
  cat "$root/build/p.pch.sum"
}
one=$(pch_sum "$tmp/one" 'inline int f() { return 1; }')
two=$(pch_sum "$tmp/second-checkout" 'inline int f() { return 1; }')
changed=$(pch_sum "$tmp/changed" 'inline int f() { return 2; }')
[[ -n $one ]] || fail "no .pch.sum written"
[[ $one == "$two" ]] || fail "the same tree in two directories gave different .pch.sum files"
[[ $one != "$changed" ]] || fail "a changed header kept the same .pch.sum"

# Other compiles go to ccache, with the .pch's header named relative to the build directory.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\n' "$tmp/ccache-args" >"$tmp/fake-ccache"
chmod +x "$tmp/fake-ccache"
(cd "$tmp/one/build" && "$launcher" "$tmp/fake-ccache" "$tmp/one" "$tmp/one/build" "$cxx" \
  -Xclang -include -Xclang "$tmp/one/build/cmake_pch.hxx" -c x.cc)
grep -qx 'cmake_pch.hxx' "$tmp/ccache-args" ||
  fail "ccache got the .pch header as: $(grep pch "$tmp/ccache-args")"
echo "PASS"
