#!/bin/sh
# scout: prints the source files under a directory as a JSON array,
#   [{"file": "common/json.cc"}, ...]
# sorted, at most 40 (SCOUT_MAX_FILES), skipping hidden, build and vendored
# directories. The directory is the `dir` argument of the run
# (TASKBOARD_ARGS_JSON), else the one named in the prompt ("List the source
# files under DIR"), else "."; relative to the worker's working directory.
set -eu

dir=$(printf '%s' "${TASKBOARD_ARGS_JSON:-}" | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p')
if [ -z "$dir" ]; then
  dir=$(printf '%s\n' "${TASKBOARD_PROMPT:-}" |
    sed -n 's/.*List the source files under \([^ ]*\).*/\1/p' | head -n 1)
fi
[ -n "$dir" ] || dir=.
if [ ! -d "$dir" ]; then
  echo "scout: '$dir' is not a directory under $(pwd)" >&2
  exit 1
fi

find "$dir" -mindepth 1 \
  \( -type d \( -name '.?*' -o -name build -o -name 'build-*' -o -name node_modules \
     -o -name vendor -o -name third_party -o -name __pycache__ \) -prune \) -o \
  \( -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \
     -o -name '*.go' -o -name '*.rs' -o -name '*.py' -o -name '*.js' -o -name '*.ts' \
     -o -name '*.java' -o -name '*.rb' -o -name '*.sh' -o -name '*.proto' \) -print \) |
  sed 's|^\./||' | LC_ALL=C sort | head -n "${SCOUT_MAX_FILES:-40}" |
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' |
  awk 'BEGIN { printf "[" }
       { printf "%s{\"file\": \"%s\"}", (NR > 1 ? ", " : ""), $0 }
       END { print "]" }'
