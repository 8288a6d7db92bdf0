#!/bin/sh
# writer: turns the per-file summaries in its prompt (a map phase's merged
# output, one "### [i/N] agent" header per item) into a short markdown
# overview: the summaries grouped by directory, then the three largest files
# as the ones to read first. The directory comes from the prompt's
# "[... under] DIR, based on these per-file summaries:" line. A summary that
# ends with the summarizer's " Part of DIR/: ROLE." (the README's layout) gives
# its group that line once, under the heading, instead of on every file.
set -eu

prompt=${TASKBOARD_PROMPT:-}
dir=$(printf '%s\n' "$prompt" | sed -n 's/, based on these per-file summaries:$//p' | head -n 1 |
  sed 's/.*under //')
[ -n "$dir" ] || dir=.

# The first non-blank line after each successful item's header.
summaries=$(printf '%s\n' "$prompt" | awk '
  /^### \[[0-9]+\/[0-9]+\]/ { want = ($0 !~ /\(failed\)$/); next }
  want && NF { print; want = 0 }')

printf '# Overview of %s\n\n' "$dir"
if [ -z "$summaries" ]; then
  echo "No file summaries were available."
  exit 0
fi
files=$(printf '%s\n' "$summaries" | wc -l | tr -d ' ')
by_dir=$(printf '%s\n' "$summaries" |
  awk '{ d = $1; if (sub(/\/[^\/]*$/, "", d) == 0) d = "(top level)"; print d "\t" $0 }' |
  LC_ALL=C sort)
dirs=$(printf '%s\n' "$by_dir" | cut -f 1 | uniq | wc -l | tr -d ' ')
biggest=$(printf '%s\n' "$by_dir" | cut -f 1 | uniq -c | sort -k1,1nr -k2 | head -n 1 |
  awk '{ print $2 }')
echo "$files files in $dirs directories; most of them are in $biggest."

printf '%s\n' "$by_dir" | awk -F '\t' '
  function part_of(summary) { return match(summary, / Part of [^ ]+: .*[.]$/) ? RSTART : 0 }
  $1 != last {
    printf "\n## %s\n\n", $1; last = $1
    if (part_of($2)) printf "%s\n\n", substr($2, RSTART + 1)
  }
  { line = $2; if (part_of(line)) line = substr(line, 1, RSTART - 1); print "- " line }'

printf '\n## Read first\n\n'
printf '%s\n' "$summaries" | sed -n 's/^\([^ ]*\) (\([0-9]*\) lines).*/\2 \1/p' |
  LC_ALL=C sort -k1,1nr -k2,2 | head -n 3 | awk '{ printf "%d. %s (%s lines)\n", NR, $2, $1 }'
