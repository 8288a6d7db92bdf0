#ifndef TASKBOARD_WORKER_BASE_HTTP_POST_H_
#define TASKBOARD_WORKER_BASE_HTTP_POST_H_

// One HTTP POST (or GET, DELETE) over libcurl that a cancel token can abort
// at once: the transfer runs on curl's multi interface, whose wait also
// watches the token's eventfd, so a cancelled run returns within
// milliseconds instead of at curl's next progress tick. Redirects are not
// followed (a 3xx is a response). No retries here (worker/agents/chat_client.h
// and worker/tools/mcp/mcp_http_connection.h decide those). Thread-safe: each
// call has its own handles.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

struct HttpPostRequest {
  // "POST" (with `body`), "GET" or "DELETE".
  std::string method = "POST";
  std::string url;
  // "Name: value" lines.
  std::vector<std::string> headers;
  std::string body;
  // The whole exchange, connecting included.
  absl::Duration timeout = absl::Seconds(300);
  absl::Duration connect_timeout = absl::Seconds(10);
  // Optional: aborts the transfer when cancelled.
  const CancelToken* cancel = nullptr;
  // Optional: a second token that aborts it too (an owner shutting down, or
  // a stream reader that has what it waited for). Also CANCELLED.
  const CancelToken* stop = nullptr;
  // Response headers to keep, by lower-case name (HttpResponse::headers).
  std::vector<std::string> capture_headers;
  // Optional: receives the body of a 2xx response whose Content-Type is
  // text/event-stream piece by piece, as it arrives, instead of collecting
  // it in HttpResponse::body.
  std::function<void(absl::string_view)> on_event_stream;
  // Optional: asked after each streamed piece; true ends the transfer there
  // as a complete response (a reader that has what it waited for, from a
  // server that keeps the stream open).
  std::function<bool()> stream_done;
  // The most body bytes taken, streamed or not (0: no limit): a server that
  // sends more is cut off with RESOURCE_EXHAUSTED instead of filling the
  // worker's memory.
  size_t max_response_bytes = 0;
  // For a body that goes to on_event_stream, the limit instead of
  // max_response_bytes (0: none; a long-lived stream's reader bounds each
  // event itself).
  std::optional<size_t> max_stream_bytes;
};

// The longest captured header value kept; a longer one is kept cut to one
// byte more, so a caller can tell it was too long.
inline constexpr size_t kMaxCapturedHeaderBytes = 8 << 10;

struct HttpResponse {
  int status = 0;
  std::string content_type;
  // The Retry-After header, as sent ("" when absent).
  std::string retry_after;
  // The body, unless it went to on_event_stream.
  std::string body;
  bool streamed = false;
  // The capture_headers that came, by lower-case name, whitespace-trimmed.
  absl::flat_hash_map<std::string, std::string> headers;
};

// Any HTTP status is a response, not an error. Errors (messages say what
// happened, without the URL, which callers add): UNAVAILABLE (cannot
// resolve, connect, or the connection broke), DEADLINE_EXCEEDED (the
// timeout passed), CANCELLED (a token fired), RESOURCE_EXHAUSTED (the body
// passed its limit).
absl::StatusOr<HttpResponse> HttpPost(const HttpPostRequest& request);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_HTTP_POST_H_
