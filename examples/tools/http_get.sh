#!/bin/sh
# http_get: reads {"url": "..."} on stdin and prints
# {"url", "status", "content_type", "body"} (body cut at 20000 characters).
# A non-2xx answer is a result, not an error, so the model can read it; the
# research flow caches only `status == 200`.
set -eu
url=$(jq -r '.url // empty')
case "$url" in
  http://* | https://*) ;;
  *) echo "http_get: give {\"url\": \"https://...\"} (got: '$url')" >&2; exit 2 ;;
esac
body=$(mktemp "${TMPDIR:-/tmp}/http_get.XXXXXX")
trap 'rm -f "$body"' EXIT
if ! meta=$(curl -sS -L --max-time 20 --max-filesize 5000000 -A 'taskboard-example/1' \
  -o "$body" -w '%{http_code} %{content_type}' "$url"); then
  echo "http_get: GET $url failed (see curl's message above)" >&2
  exit 1
fi
status=${meta%% *}
content_type=${meta#* }
head -c 20000 "$body" | jq -cRs --arg url "$url" --argjson status "$status" \
  --arg content_type "$content_type" \
  '{url: $url, status: $status, content_type: $content_type, body: .}'
