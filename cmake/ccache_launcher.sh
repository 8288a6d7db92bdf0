#!/usr/bin/env bash
# The compiler launcher for every compile when ccache is installed: ccache, set
# up so that the precompiled headers (cmake/TaskboardFastBuild.cmake) do not stop a
# second checkout of the same tree, in another directory, from building out of
# the cache (CI builds a fresh clone; every worktree shares one cache).
#
# Clang's .pch records the absolute path of every header it was built from, so
# equal trees in two directories give different .pch files, and ccache, which
# hashes the .pch into the key of every file compiled with it, would miss for
# all of those files. So the .pch itself is always compiled here, without
# ccache (a few seconds per library), and next to it goes a .pch.sum that
# ccache hashes instead (pch_external_checksum): a digest of the compile
# command and of every header the .pch was built from, with the source and
# build directories taken out. Equal trees give equal .sum files wherever they
# are checked out; a changed header or flag gives a new one.
#
# usage: ccache_launcher.sh CCACHE SOURCE_DIR BINARY_DIR COMPILER ARGS...
set -euo pipefail
ccache=$1 src=$2 bin=$3
shift 3
# pch_defines and time_macros: ccache cannot see #defines or __TIME__ through a
# .pch, and refuses to cache files compiled with one unless told to accept that.
export CCACHE_SLOPPINESS=pch_defines,time_macros CCACHE_PCH_EXTSUM=true

# CMake names the header a .pch was made from (-Xclang -include -Xclang
# .../cmake_pch.hxx) by its absolute path in the build directory, and ccache
# hashes -Xclang arguments as they are: name it relative to the working
# directory (the build directory), where the compiler finds it all the same.
args=()
for arg in "$@"; do
  if [[ $arg == "$PWD"/*cmake_pch.hxx ]]; then
    arg=${arg#"$PWD"/}
  fi
  args+=("$arg")
done
set -- "${args[@]}"

emit_pch=false out= depfile= prev=
for arg in "$@"; do
  case $prev in
  -o) out=$arg ;;
  -MF) depfile=$arg ;;
  esac
  [[ $arg == -emit-pch ]] && emit_pch=true
  prev=$arg
done
if ! $emit_pch; then
  exec "$ccache" "$@"
fi
if [[ -z $out || -z $depfile ]]; then
  echo "ccache_launcher.sh: a .pch compile without -o or -MF; cmake/TaskboardFastBuild.cmake" \
    "expects CMake's Ninja rules (-MD -MF)" >&2
  exit 2
fi

rm -f "$out.sum"
"$@"

# Paths with the checkout's directories taken out (the build directory first:
# it is usually inside the source directory).
relative() {
  local path=$1
  path=${path//"$bin"/@BIN@}
  printf '%s\n' "${path//"$src"/@SRC@}"
}
{
  for arg in "$@"; do relative "$arg"; done
  # The depfile lists every header the .pch was built from, as one make rule
  # with backslash-newline continuations; relative entries are relative to the
  # working directory, as they are for sha256sum.
  sed -e '1s/^[^:]*://' -e 's/\\$//' "$depfile" | tr -s ' \t' '\n\n' | sed '/^$/d' |
    xargs -d '\n' sha256sum | while IFS= read -r line; do relative "$line"; done
} | sha256sum | cut -d' ' -f1 >"$out.sum.tmp"
mv "$out.sum.tmp" "$out.sum"
