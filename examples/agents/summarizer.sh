#!/bin/sh
# summarizer: reads the file named in its prompt ("Read <path> and summarize
# ...") and prints one sentence that starts with the file name, e.g.
#   common/json.h (35 lines): The JSON value type used throughout Taskboard.
# The text is the first sentence of the file's leading comment (legal
# boilerplate skipped), else the names of its first definitions. When the
# nearest README.md above the file has a "Layout" section listing the file's
# directory, the line ends with what that directory is for:
#   ... Part of common/: JSON helpers, canonical JSON, SHA-256, child processes.
#
# The README is read through the worker's `read_file` tool (`taskboard tool`),
# not from disk: the summarizers of one run all read the same README, so the
# first read runs and the others are answered by the scheduler's shared tool
# cache; the live view counts them (`tools 40 · cached 39`). Run outside a
# Taskboard worker (no TASKBOARD_TOOL_SOCKET), the line goes without.
set -eu

file=$(printf '%s\n' "${TASKBOARD_PROMPT:-}" | sed -n 's/^Read \(.*\) and summarize.*/\1/p' |
  head -n 1)
if [ -z "$file" ]; then
  echo "summarizer: the prompt has no 'Read <path> and summarize' line" >&2
  exit 2
fi
if [ ! -f "$file" ] || [ ! -r "$file" ]; then
  echo "summarizer: cannot read $file (from $(pwd))" >&2
  exit 1
fi
lines=$(wc -l <"$file" | tr -d ' ')

# " Part of DIR/: ROLE." from the README's layout (see the top), or "".
part_of() {
  [ -n "${TASKBOARD_TOOL_SOCKET:-}" ] || return 0
  file_dir=$(dirname "$file")
  d=$file_dir
  while [ ! -f "$d/README.md" ] && [ "$d" != . ] && [ "$d" != / ]; do d=$(dirname "$d"); done
  [ -f "$d/README.md" ] || return 0
  case "$d" in
    .) readme=README.md ;;
    *) readme=$d/README.md ;;
  esac
  path_json=$(printf '%s' "$readme" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
  # One line of JSON: {"bytes":N,"content":"<the README, escaped>","path":"..."}.
  result=$(taskboard tool read_file "{\"path\": \"$path_json\"}" 2>/dev/null) || return 0
  # The layout lines look like "common/   JSON helpers, ...;  tools/bench/  Benchmarks";
  # the longest directory that contains the file wins.
  printf '%s\n' "$result" | awk -v dir="$file_dir/" '
    {
      i = index($0, "\"content\":\"")
      if (i == 0) exit
      s = substr($0, i + 11)
      gsub(/\\\\/, "\001", s); gsub(/\\"/, "\002", s)  # escaped \ and " out of the way
      s = substr(s, 1, index(s, "\"") - 1)           # the end of the content string
      n = split(s, text_lines, /\\n/)
      for (k = 1; k <= n; k++) {
        line = text_lines[k]
        if (line ~ /^#+ /) { in_layout = (tolower(line) ~ /^## .*layout/); continue }
        if (!in_layout) continue
        m = split(line, entries, /; +/)
        for (e = 1; e <= m; e++) {
          entry = entries[e]; sub(/^ +/, "", entry)
          path = entry; sub(/ .*/, "", path)
          role = entry; sub(/^[^ ]+ +/, "", role)
          if (path ~ /\/$/ && role != entry && index(dir, path) == 1 &&
              length(path) > length(best)) { best = path; best_role = role }
        }
      }
      if (best_role == "") exit
      gsub(/\001/, "\\", best_role); gsub(/\002/, "\"", best_role); gsub(/\\t/, " ", best_role)
      sub(/[.;:, ]+$/, "", best_role)
      printf " Part of %s: %s.", best, best_role
    }'
}

case "$file" in
  *.c | *.cc | *.cpp | *.h | *.hpp | *.go | *.rs | *.js | *.ts | *.java | *.proto) style="slash" ;;
  *.sh | *.py | *.rb | *.yaml | *.yml) style="hash" ;;
  *) style="none" ;;
esac

# The leading comment: comment lines before the first line of code (blank
# lines, shebangs and preprocessor lines may come first), paragraph by
# paragraph until one is not legal boilerplate; its first sentence.
comment=$(awk -v style="$style" '
  function done() { if (text ~ /[Cc]opyright|[Ll]icen[cs]e|SPDX/) text = ""; return text != "" }
  {
    line = $0; is_comment = 0
    if (style == "slash") {
      if (in_block) { is_comment = 1; if (line ~ /\*\//) in_block = 0 }
      else if (line ~ /^[ \t]*\/\//) is_comment = 1
      else if (line ~ /^[ \t]*\/\*/) { is_comment = 1; in_block = (line !~ /\*\//) }
      if (is_comment) {
        sub(/^[ \t]*(\/\/+|\/\*+|\*+)[ \t]*/, "", line); sub(/[ \t]*\*+\/[ \t]*$/, "", line)
      }
    } else if (style == "hash" && line ~ /^[ \t]*#/ && line !~ /^#!/) {
      is_comment = 1; sub(/^[ \t]*#+[ \t]*/, "", line)
    }
    if (!is_comment) {
      if (done()) exit
      if (line ~ /^[ \t]*$/ || line ~ /^#!/ || (style == "slash" && line ~ /^[ \t]*#/)) next
      exit
    }
    if (line == "") { if (done()) exit; next }
    text = (text == "" ? line : text " " line)
  }
  END {
    done()
    if (match(text, /[.!?] [A-Z`"(]/)) text = substr(text, 1, RSTART)  # not at "e.g. x"
    if (length(text) > 200) { text = substr(text, 1, 200); sub(/ [^ ]*$/, " ...", text) }
    print text
  }' "$file")

if [ -n "$comment" ]; then
  comment=${comment%[:;,]}
  case "$comment" in
    *. | *! | *\?) ;;
    *) comment="$comment." ;;
  esac
  echo "$file ($lines lines): $comment$(part_of)"
  exit 0
fi

# Type and function names in file order (functions: C-style definitions that
# start at column 0, such as "std::string DumpJson(const Json& value) {").
defs=$(sed -nE \
  -e 's/^[[:space:]]*(enum class|class|struct|enum|message|service|def|func|fn|function|interface) +([A-Za-z_][A-Za-z0-9_]*).*/\2/p' \
  -e 's/^[A-Za-z_][^(=;]* [*&]*([A-Za-z_][A-Za-z0-9_:~]*)\(.*/\1/p' "$file" |
  awk '!seen[$0]++' | head -n 3 | paste -sd ',' - | sed 's/,/, /g')
if [ -n "$defs" ]; then
  echo "$file ($lines lines) defines $defs.$(part_of)"
else
  echo "$file ($lines lines) has no leading comment or top-level definitions.$(part_of)"
fi
