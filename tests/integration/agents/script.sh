#!/bin/sh
# The integration tests' command agent: the task prompt is a tiny script.
#   echo TEXT          print TEXT
#   fail MESSAGE       print MESSAGE on stderr, exit 3
#   fail-once TEXT     fail on attempt 1, print TEXT on later attempts
#   sleep SECONDS TEXT sleep, then print TEXT
#   list N             print a JSON array of N objects {"n": i}
#   verdict WORDS      print "VERDICT: WORDS"
#   need PATH TEXT     print TEXT if PATH exists, else fail
#   tool NAME [JSON]   call a worker tool with `taskboard tool`, print its result
#   envelope           print the JSON the worker sent on stdin (prior_work etc.)
#   env                print the environment the worker gave the agent
#   worker-environ     print the worker's start-up environment (/proc/WORKER/environ; the
#                      worker is the parent of the agent's taskboard-reaper, $PPID)
#   pwd                print the directory the agent runs in, and what is in it
#   write FILE TEXT    write TEXT to FILE (in the agent's directory), print the directory
#   anything else      print the prompt itself
# With EXECUTION_LOG set (an agent file's env), every execution first appends
# "TASK_ID ATTEMPT" to that file: chaos tests count what really ran.
set -eu
if [ -n "${EXECUTION_LOG:-}" ]; then
  printf '%s %s\n' "${TASKBOARD_TASK_ID:-}" "${TASKBOARD_ATTEMPT:-1}" >> "$EXECUTION_LOG"
fi
prompt=${TASKBOARD_PROMPT:-}
word=${prompt%% *}
rest=${prompt#* }
case "$word" in
  echo) printf '%s\n' "$rest" ;;
  fail) printf '%s\n' "$rest" >&2; exit 3 ;;
  fail-once)
    if [ "${TASKBOARD_ATTEMPT:-1}" = 1 ]; then echo "first attempt fails" >&2; exit 1; fi
    printf '%s\n' "$rest" ;;
  sleep)
    seconds=${rest%% *}
    sleep "$seconds"
    printf '%s\n' "${rest#* }" ;;
  list)
    i=1; printf '['
    while [ "$i" -le "$rest" ]; do
      [ "$i" -gt 1 ] && printf ','
      printf '{"n": %d}' "$i"; i=$((i + 1))
    done
    printf ']\n' ;;
  need)
    path=${rest%% *}
    if [ ! -e "$path" ]; then echo "$path does not exist yet" >&2; exit 4; fi
    printf '%s\n' "${rest#* }" ;;
  verdict) printf 'checked.\nVERDICT: %s\n' "$rest" ;;
  tool)
    name=${rest%% *}
    if [ "$name" = "$rest" ]; then taskboard tool "$name"; else taskboard tool "$name" "${rest#* }"; fi ;;
  envelope) cat ;;
  env) env ;;
  worker-environ)
    worker=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$PPID/status")
    tr '\0' '\n' < "/proc/$worker/environ"; echo ;;
  pwd) pwd; ls -A ;;
  write)
    file=${rest%% *}
    printf '%s\n' "${rest#* }" > "$file"
    pwd ;;
  *) printf '%s\n' "$prompt" ;;
esac
