#!/bin/sh
# summarizer: reads the file named in its prompt ("Read <path> and summarize
# ...") and prints one sentence that starts with the file name, e.g.
#   common/json.h (35 lines): The JSON value type used throughout Taskboard.
# The text is the first sentence of the file's leading comment (legal
# boilerplate skipped), else the names of its first definitions.
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
  echo "$file ($lines lines): $comment"
  exit 0
fi

# Type and function names in file order (functions: C-style definitions that
# start at column 0, such as "std::string DumpJson(const Json& value) {").
defs=$(sed -nE \
  -e 's/^[[:space:]]*(enum class|class|struct|enum|message|service|def|func|fn|function|interface) +([A-Za-z_][A-Za-z0-9_]*).*/\2/p' \
  -e 's/^[A-Za-z_][^(=;]* [*&]*([A-Za-z_][A-Za-z0-9_:~]*)\(.*/\1/p' "$file" |
  awk '!seen[$0]++' | head -n 3 | paste -sd ',' - | sed 's/,/, /g')
if [ -n "$defs" ]; then
  echo "$file ($lines lines) defines $defs."
else
  echo "$file ($lines lines) has no leading comment or top-level definitions."
fi
