#!/usr/bin/env bash
# tools/bench/first_run_fresh.sh --summarize: each part of the README's first command
# is read off the run's stamped output (apt-get update, download, unpack, npm ci,
# configure, build, demo), timed from the run's own start, not from when the build
# lock was free; a run that failed in its build says so and prints no build part.
# usage: first_run_fresh_test.sh SCRIPT
set -euo pipefail
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect OUTPUT LINE-PATTERN
  grep -qE "$2" <<<"$1" || fail "no line matching '$2' in:"$'\n'"$1"
}

# The lock was free after 5 s; the parts follow the lines install-deps, apt, CMake,
# ninja and the demo print.
cat >"$tmp/ok.log" <<'LOG'
first_run_fresh: waiting for /tmp/taskboard-build.lock
    5.0 first_run_fresh: timed run starts
    5.1 install-deps: installing clang cmake ninja-build nodejs npm
    5.1 Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]
    7.0 Fetched 15.8 MB in 1s (14.2 MB/s)
    7.5 Reading package lists...
    7.6 Reading package lists...
    9.0 Fetched 155 MB in 1s (185 MB/s)
    9.5 Selecting previously unselected package clang.
   40.0 install-deps: installing the web console's packages into web/console
   44.0 install-deps: done
   44.1 -- The C compiler identification is Clang 14.0.6
   55.0 -- Build files have been written to: /src/build
   55.0 [1/3] protoc taskboard/v1/common.proto
   60.0 [2/3] Building CXX object scheduler/main.cc.o
  200.0 [3/3] Linking CXX executable bin/taskboard
  200.5 Taskboard dev: scheduler and worker on 127.0.0.1:41234
  201.0 ✓ taskflow repo-digest  4/4 phases · completed · 659ms · tools 40 · cached 39
  201.2 
  201.2 real	3m16.200s
  201.2 user	5m0.000s
  201.2 sys	0m30.000s
first_run_fresh: an earlier summary, not stamped: ignored
LOG
out=$("$script" --summarize "$tmp/ok.log")
expect "$out" 'the demo run completed'
expect "$out" '^  apt-get update +2\.5 s$'
expect "$out" '^  apt-get install: resolve \+ download +1\.4 s$'
expect "$out" '^  apt-get install: unpack \+ configure +31\.0 s$'
expect "$out" '^  npm ci \(web/console\) +4\.0 s$'
expect "$out" '^  cmake configure +10\.9 s$'
expect "$out" '^  build \(ninja, 3 steps\) +145\.0 s$'
expect "$out" '^  demo +1\.2 s$'
expect "$out" '^  total +196\.2 s \(time: real 3m16\.200s, user 5m0\.000s, sys 0m30\.000s\)$'

# The build failed: no build or demo part, and the summary says the demo did not complete.
sed -e '/\[3\/3\]/,$d' "$tmp/ok.log" | sed -e 's/\[[12]\/3\]/FAILED:/' >"$tmp/failed.log"
out=$("$script" --summarize "$tmp/failed.log")
expect "$out" 'the demo run did not complete'
expect "$out" '^  cmake configure +10\.9 s$'
if grep -qE '^  (build|demo) ' <<<"$out"; then fail "a failed build printed a build part:"$'\n'"$out"; fi

if "$script" --summarize "$tmp/missing.log" 2>"$tmp/err"; then fail "a missing log was accepted"; fi
grep -q 'usage: first_run_fresh.sh --summarize LOG' "$tmp/err" || fail "no usage for a missing log"
echo "PASS"
