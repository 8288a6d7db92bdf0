#!/usr/bin/env bash
# Runs a libFuzzer binary for a fixed time on a scratch copy of its seed
# corpus (so new inputs never land in the source tree). A crash leaves its
# reproducer in the scratch dir, whose path is printed.
# Inputs that once failed (regressions/) are replayed first and seed the run,
# with the large hostile seeds of make_hostile_seeds.sh (deep nesting, long
# strings, huge arrays), generated into the scratch corpus.
# Inputs go up to 1 MiB: a hostile model reply or flow is that big, and the
# nesting that once overflowed the stack needs 100,000 bytes.
#   run_fuzzer.sh FUZZER SEED_DIR DICT SECONDS
set -euo pipefail
fuzzer=$1 seeds=$2 dict=$3 seconds=$4
here=$(dirname "$0")
regressions=$here/regressions
work=$(mktemp -d "${TMPDIR:-/tmp}/taskboard-fuzz.XXXXXX")
trap 'status=$?; if ((status == 0)); then rm -rf "$work"; else echo "fuzz artifacts kept in $work"; fi' EXIT
mkdir -p "$work/corpus"
cp "$seeds"/* "$work/corpus/"
if compgen -G "$regressions/*" >/dev/null; then
  "$fuzzer" -runs=0 "$regressions"/*   # replay: fails fast on a known bug
  cp "$regressions"/* "$work/corpus/"
fi
"$here/make_hostile_seeds.sh" "$work/corpus"
"$fuzzer" "$work/corpus" -dict="$dict" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 -artifact_prefix="$work/"
