#include "worker/agents/chat_client.h"

#include <poll.h>

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json.h"
#include "worker/agents/chat_json.h"
#include "worker/agents/chat_stream.h"
#include "worker/base/http_post.h"

namespace taskboard::worker {
namespace {

constexpr absl::string_view kServerHint =
    "(is the LLM server running? set base_url or OPENAI_BASE_URL)";
constexpr absl::string_view kEndpointHint =
    "(is base_url an OpenAI-compatible endpoint, such as http://HOST:PORT/v1?)";
constexpr absl::string_view kRequestTimeoutHint =
    "(timed out: raise requestTimeoutSeconds in the agent file if the model needs longer)";
constexpr absl::string_view kResponseSizeHint =
    "(over the agent file's maxResponseBytes: raise it if the model's answers are that long)";

bool Retryable(int status) { return status == 429 || status >= 500; }

// Retry-After in seconds; HTTP dates are rare from LLM servers and ignored.
absl::Duration RetryAfter(absl::string_view header) {
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(header, &seconds) || seconds < 0) return absl::ZeroDuration();
  return absl::Seconds(seconds);
}

// The server's own explanation: OpenAI's {"error": {"message": ...}}, else
// the start of the body.
std::string ServerMessage(absl::string_view body) {
  absl::StatusOr<Json> doc = ParseJson(body);
  if (doc.ok() && doc->is_object()) {
    auto error = doc->find("error");
    if (error != doc->end()) {
      if (error->is_string()) return Snippet(error->get<std::string>());
      if (std::string message = StringField(*error, "message"); !message.empty()) {
        return Snippet(message);
      }
    }
  }
  return body.empty() ? "(empty body)" : Snippet(body);
}

absl::Status HttpError(const HttpResponse& response, int attempts) {
  const std::string what = absl::StrCat(
      "HTTP ", response.status, attempts > 1 ? absl::StrCat(" after ", attempts, " attempts") : "",
      ": ", ServerMessage(response.body));
  switch (response.status) {
    case 401:
      return absl::UnauthenticatedError(
          absl::StrCat(what, " (check the API key: api_key_env, else OPENAI_API_KEY)"));
    case 403:
      return absl::PermissionDeniedError(
          absl::StrCat(what, " (the API key may not have access to this model)"));
    case 404:
      return absl::InvalidArgumentError(
          absl::StrCat(what,
                       " (check the model name, and that base_url is an OpenAI-compatible "
                       "endpoint such as http://HOST:PORT/v1)"));
    case 429:
      return absl::ResourceExhaustedError(
          absl::StrCat(what, " (rate limited: lower the concurrency or try again later)"));
    default:
      if (response.status >= 500) {
        return absl::UnavailableError(
            absl::StrCat(what, " (the LLM server is failing; try again later)"));
      }
      return absl::InvalidArgumentError(what);
  }
}

// The gate's refusal as the call's error: a refusal says who refused (its
// text names the budget and what to do); CANCELLED and DEADLINE_EXCEEDED
// read as they are.
absl::Status GateError(const absl::Status& status) {
  if (absl::IsFailedPrecondition(status) || absl::IsResourceExhausted(status)) {
    return absl::Status(status.code(),
                        absl::StrCat("the scheduler refused the call: ", status.message()));
  }
  return status;
}

// Sleeps `delay` unless `cancel` fires first; returns whether it fired.
bool WaitOrCancelled(absl::Duration delay, const CancelToken* cancel) {
  const absl::Time until = absl::Now() + delay;
  while (true) {
    if (cancel != nullptr && cancel->cancelled()) return true;
    const absl::Duration left = until - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    // Without an eventfd, check the token every 50 ms.
    const int fd = cancel != nullptr ? cancel->fd() : -1;
    const int64_t millis = std::min<int64_t>(
        absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))), fd >= 0 ? 1000 : 50);
    pollfd pfd{fd, POLLIN, 0};
    poll(fd >= 0 ? &pfd : nullptr, fd >= 0 ? 1 : 0, static_cast<int>(millis));
  }
}

}  // namespace

ChatClient::ChatClient(ChatClientOptions options)
    : options_(std::move(options)),
      url_(absl::StrCat(absl::StripSuffix(options_.base_url, "/"), "/chat/completions")),
      endpoint_(absl::StrCat("POST ", url_)) {}

absl::StatusOr<ChatResponse> ChatClient::Complete(
    const ChatRequest& request, const CancelToken* cancel,
    const std::function<void(absl::string_view)>& on_delta, absl::Time deadline) const {
  auto fail = [this](const absl::Status& status, absl::string_view hint = "") {
    return absl::Status(status.code(), absl::StrCat(endpoint_, ": ", status.message(),
                                                    hint.empty() ? "" : " ", hint));
  };
  absl::StatusOr<std::string> body = ChatRequestBody(request);
  if (!body.ok()) return fail(body.status());

  HttpPostRequest post;
  post.url = url_;
  post.headers = {"Content-Type: application/json",
                  request.stream ? "Accept: text/event-stream" : "Accept: application/json"};
  if (!options_.api_key.empty()) {
    post.headers.push_back(absl::StrCat("Authorization: Bearer ", options_.api_key));
  }
  post.body = *std::move(body);
  post.connect_timeout = options_.connect_timeout;
  post.max_response_bytes = options_.max_response_bytes;
  post.cancel = cancel;

  const LlmCallPlan plan{.model = request.model,
                         .estimated_input_tokens = static_cast<int64_t>(post.body.size() / 4),
                         .max_output_tokens = request.max_tokens.value_or(0)};
  Backoff backoff(options_.backoff);
  absl::BitGen random;
  const int attempts = std::max(1, options_.max_attempts);
  for (int attempt = 1;; ++attempt) {
    if (deadline <= absl::Now()) {
      return fail(absl::DeadlineExceededError("the task's time ran out before the request"));
    }
    // Every attempt the gate let through is reported exactly once, however
    // it ends, so the scheduler's reservation for it is released.
    std::string grant_id;
    if (options_.gate != nullptr) {
      absl::StatusOr<std::string> grant = options_.gate->Acquire(plan, cancel, deadline);
      if (!grant.ok()) return fail(GateError(grant.status()));
      grant_id = *std::move(grant);
    }
    auto report = [&](const LlmCallEnd& end) {
      if (options_.gate != nullptr) options_.gate->Report(grant_id, plan, end);
    };
    // The wait for the grant may have used the rest of the task's time.
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      report({});
      return fail(absl::DeadlineExceededError(
          "the task's time ran out while waiting for the scheduler's grant"));
    }
    post.timeout = std::min(options_.request_timeout, left);
    // A fresh assembler per attempt: only a 2xx answer streams, so nothing
    // from a failed attempt reaches on_delta.
    ChatStreamAssembler stream(on_delta);
    if (request.stream) post.on_event_stream = [&stream](absl::string_view b) { stream.Feed(b); };

    absl::StatusOr<HttpResponse> response = HttpPost(post);
    LlmCallEnd end;
    end.http_status = response.ok() ? response->status : 0;
    if (!response.ok()) {
      report(end);
      absl::string_view hint;
      if (response.status().code() == absl::StatusCode::kUnavailable) hint = kServerHint;
      if (absl::IsResourceExhausted(response.status())) hint = kResponseSizeHint;
      // When the task's deadline cut the request short, the caller reports
      // the task's timeout; only the request's own limit needs this hint.
      if (absl::IsDeadlineExceeded(response.status()) && post.timeout == options_.request_timeout) {
        hint = kRequestTimeoutHint;
      }
      return fail(response.status(), hint);
    }
    if (response->status >= 200 && response->status < 300) {
      absl::StatusOr<ChatResponse> answer =
          response->streamed ? stream.Finish() : ParseChatResponse(response->body);
      if (answer.ok()) {
        end.input_tokens = answer->prompt_tokens;
        end.output_tokens = answer->completion_tokens;
        end.cached_tokens = answer->cached_tokens;
      }
      report(end);
      if (!answer.ok()) return fail(absl::InternalError(answer.status().message()), kEndpointHint);
      if (!response->streamed && request.stream && on_delta && !answer->message.content().empty()) {
        on_delta(answer->message.content());
      }
      return answer;
    }
    if (response->status == 429) end.retry_after = RetryAfter(response->retry_after);
    report(end);
    if (!Retryable(response->status) || attempt >= attempts) {
      return fail(HttpError(*response, attempt));
    }
    // The report paused the model at the scheduler for every worker; the
    // next grant waits out that pause, so a backoff here would add to it.
    if (response->status == 429 && !grant_id.empty()) continue;
    const absl::Duration delay = std::max(backoff.Next(random), RetryAfter(response->retry_after));
    if (absl::Now() + delay >= deadline) {
      return fail(HttpError(*response, attempt), "(the task's time ends before the next attempt)");
    }
    if (WaitOrCancelled(delay, cancel)) return fail(absl::CancelledError("cancelled"));
  }
}

}  // namespace taskboard::worker
