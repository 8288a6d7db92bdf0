#!/usr/bin/env bash
# Writes the large seeds every fuzz target starts from into DIR: deep
# nesting, long strings and huge arrays, bare and wrapped the way each target
# reads them (flow DSL, model reply, SSE stream, plan/review JSON). They are
# generated at run time, deterministically, so the source tree holds no
# megabyte files; each stays under run_fuzzer.sh's -max_len (1 MiB).
#   make_hostile_seeds.sh DIR
set -euo pipefail
dir=$1
mkdir -p "$dir"

# repeat N TEXT: TEXT N times, no separator.
repeat() { N=$1 TEXT=$2 awk 'BEGIN { for (i = 0; i < ENVIRON["N"]; i++) printf "%s", ENVIRON["TEXT"] }'; }

deep_open=$(repeat 100000 '[')
deep_closed="$deep_open$(repeat 100000 ']')"
deep_object="$(repeat 70 '{"a":')1$(repeat 70 '}')"
long_string=$(repeat 500000 'x')
huge_array="[$(repeat 99999 '0,')0]"

# Nesting, bare.
printf '%s' "$deep_open" >"$dir/deep-array-open.json"
printf '%s' "$deep_closed" >"$dir/deep-array-closed.json"
printf '%s' "$deep_object" >"$dir/deep-object-70.json"
printf '%s' "$(repeat 20000 '{"a":')" >"$dir/deep-object-open.json"
# YAML: flow nesting, block nesting by indentation and by compact "- - -"
# sequences, and aliases that expand to 10^6 nodes from a few hundred bytes.
printf 'name: x\nphases: %s\n' "$deep_open" >"$dir/yaml-flow-deep.yaml"
{
  indent=''
  for ((i = 0; i < 70; i++)); do
    printf '%sa:\n' "$indent"
    indent+='  '
  done
  printf '%sb: 1\n' "$indent"
} >"$dir/yaml-block-deep-70.yaml"
printf 'phases: %s x\n' "$(repeat 100000 '- ')" >"$dir/yaml-block-seq-deep.yaml"
{
  printf 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n'
  for ((i = 1; i <= 6; i++)); do
    printf 'a%d: &a%d [' "$i" "$i"
    for ((j = 0; j < 10; j++)); do printf '*a%d%s' "$((i - 1))" "$([[ $j -lt 9 ]] && echo ', ')"; done
    printf ']\n'
  done
  printf 'name: *a6\n'
} >"$dir/yaml-aliases.yaml"

# Long strings and huge arrays, bare and in the shapes the targets read.
printf '{"name":"%s"}' "$long_string" >"$dir/long-string.json"
printf 'name: %s\n' "$long_string" >"$dir/long-string.yaml"
printf '%s' "$huge_array" >"$dir/huge-array.json"
printf 'Here it is: %s done' "$huge_array" >"$dir/huge-array-in-prose.txt"
printf '```json\n%s\n```\n' "$deep_closed" >"$dir/deep-array-fenced.md"
printf 'prose %s then {"tasks": []}' "$(repeat 100000 '[x ')" >"$dir/unclosed-brackets-prose.txt"

# Model replies: a complete response and a stream.
printf '{"choices":[{"message":{"content":"%s"},"finish_reason":"stop"}]}' "$long_string" \
  >"$dir/chat-long-content.json"
printf '{"choices":[{"message":{"content":"x","tool_calls":[{"id":"c","function":{"name":"f","arguments":%s}}]}}]}' \
  "$deep_object" >"$dir/chat-deep-arguments.json"
printf '{"choices":%s}' "$deep_closed" >"$dir/chat-deep-choices.json"
printf 'data: {"choices":[{"delta":{"content":"%s"}}]}\n\ndata: [DONE]\n\n' "$long_string" \
  >"$dir/sse-long-line.txt"
printf 'data: %s\n\n' "$deep_closed" >"$dir/sse-deep-chunk.txt"
# llm_reply_fuzzer feeds a stream in pieces of 1 + (first byte % 64) bytes:
# '@' makes them 1 byte, which once made the assembler quadratic.
printf '@data: {"choices":[{"delta":{"content":"%s"}}]}' "$long_string" \
  >"$dir/sse-long-line-1-byte-pieces.txt"
repeat 5000 'data: {"choices":[{"delta":{"content":"ab"}}]}
' >"$dir/sse-many-chunks.txt"
repeat 3000 'data: {"choices":[{"delta":{"tool_calls":[{"index":7,"function":{"arguments":"x"}}]}}]}
' >"$dir/sse-many-tool-deltas.txt"

# Pattern outputs: a long dependency chain, many assessments.
{
  printf '{"tasks": [{"id": "t0", "goal": "g"}'
  for ((i = 1; i < 5000; i++)); do printf ', {"id": "t%d", "goal": "g", "deps": ["t%d"]}' "$i" "$((i - 1))"; done
  printf ']}'
} >"$dir/plan-long-chain.json"
{
  printf '{"assessments": [{"task_id": "t0", "verdict": "accepted", "score": 1}'
  for ((i = 1; i < 5000; i++)); do printf ', {"task_id": "t%d", "verdict": "accepted", "score": 2}' "$i"; done
  printf ']}'
} >"$dir/review-many.json"
repeat 50000 'VERDICT: ' >"$dir/gate-many-verdict-words.txt"
