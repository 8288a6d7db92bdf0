#ifndef TASKBOARD_WORKER_AGENTS_HTTP_POST_H_
#define TASKBOARD_WORKER_AGENTS_HTTP_POST_H_

// One HTTP POST over libcurl that a cancel token can abort at once: the
// transfer runs on curl's multi interface, whose wait also watches the
// token's eventfd, so a cancelled run returns within milliseconds instead of
// at curl's next progress tick. No retries here (worker/agents/chat_client.h
// decides those). Thread-safe: each call has its own handles.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

struct HttpPostRequest {
  std::string url;
  // "Name: value" lines.
  std::vector<std::string> headers;
  std::string body;
  // The whole exchange, connecting included.
  absl::Duration timeout = absl::Seconds(300);
  absl::Duration connect_timeout = absl::Seconds(10);
  // Optional: aborts the transfer when cancelled.
  const CancelToken* cancel = nullptr;
  // Optional: receives the body of a 2xx response whose Content-Type is
  // text/event-stream piece by piece, as it arrives, instead of collecting
  // it in HttpResponse::body.
  std::function<void(absl::string_view)> on_event_stream;
  // The most body bytes taken, streamed or not (0: no limit): a server that
  // sends more is cut off with RESOURCE_EXHAUSTED instead of filling the
  // worker's memory.
  size_t max_response_bytes = 0;
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  // The Retry-After header, as sent ("" when absent).
  std::string retry_after;
  // The body, unless it went to on_event_stream.
  std::string body;
  bool streamed = false;
};

// Any HTTP status is a response, not an error. Errors (messages say what
// happened, without the URL, which callers add): UNAVAILABLE (cannot
// resolve, connect, or the connection broke), DEADLINE_EXCEEDED (the
// timeout passed), CANCELLED (the token fired), RESOURCE_EXHAUSTED (the body
// passed max_response_bytes).
absl::StatusOr<HttpResponse> HttpPost(const HttpPostRequest& request);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_HTTP_POST_H_
