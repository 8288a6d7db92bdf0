#!/bin/sh
# reviewer: the repo-digest gate. Counts the per-file summaries in its prompt
# (a map phase's merged output: one "### [i/N] agent" header per item, with
# " (failed)" on failed ones) and ends with the verdict line the gate reads:
# VERDICT: PASS when at least one summary succeeded, else VERDICT: BLOCK.
set -eu

prompt=${TASKBOARD_PROMPT:-}
total=$(printf '%s\n' "$prompt" | grep -c '^### \[[0-9]*/[0-9]*\]' || true)
failed=$(printf '%s\n' "$prompt" | grep -c '^### \[[0-9]*/[0-9]*\].*(failed)$' || true)
ok=$((total - failed))
echo "Reviewed $total summaries: $ok succeeded, $failed failed."
if [ "$ok" -gt 0 ]; then
  echo "VERDICT: PASS"
else
  echo "VERDICT: BLOCK no usable summaries"
fi
