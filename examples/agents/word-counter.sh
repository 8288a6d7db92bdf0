#!/bin/sh
# word-counter: reads the file named in its prompt ("Count the words of
# <path>") and asks the worker's text_count_words tool, served by an MCP
# server (examples/tools/text-stats.yaml), to count it, through `taskboard
# tool` like any tool call: the scheduler's cache answers a text it has
# counted before in the run. Prints "<path>: <the tool's answer>".
set -eu

file=$(printf '%s\n' "${TASKBOARD_PROMPT:-}" | sed -n 's/^Count the words of \(.*\)$/\1/p' | head -n 1)
if [ -z "$file" ]; then
  echo "word-counter: the prompt has no 'Count the words of <path>' line" >&2
  exit 2
fi
if [ ! -r "$file" ]; then
  echo "word-counter: cannot read $file (from $(pwd))" >&2
  exit 1
fi
if [ -z "${TASKBOARD_TOOL_SOCKET:-}" ]; then
  echo "word-counter: not running under a Taskboard worker (no TASKBOARD_TOOL_SOCKET)" >&2
  exit 2
fi
# The file's text as a JSON string (node ships with Taskboard's install).
arguments=$(node -e 'const fs = require("fs");
process.stdout.write(JSON.stringify({text: fs.readFileSync(process.argv[1], "utf8")}));' "$file")
# The answer is the MCP result ({"content": [{"type": "text", "text": ...}]}).
counted=$(taskboard tool text_count_words "$arguments" | node -e 'let s = "";
process.stdin.on("data", (d) => { s += d; }).on("end", () => {
  process.stdout.write(JSON.parse(s).content.map((block) => block.text || "").join(""));
});')
echo "$file: $counted"
