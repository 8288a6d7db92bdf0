#ifndef TASKBOARD_WORKER_AGENTS_CHAT_CLIENT_H_
#define TASKBOARD_WORKER_AGENTS_CHAT_CLIENT_H_

// An OpenAI-compatible chat-completions client: `POST {base_url}/chat/completions`
// (OpenAI, llama.cpp, vLLM, Ollama, tools/fake-llm, ...). It retries 429 and
// 5xx answers with exponential backoff, waiting at least what Retry-After
// (seconds) asks, up to max_attempts; everything else fails at once. Errors
// name the endpoint and say what to do. Thread-safe (no mutable state).
//
// With a gate (worker/agents/llm_call_gate.h), every attempt asks it first
// and tells it how the attempt ended. A 429 on a granted attempt is not
// followed by the client's own backoff: the report paused the model at the
// scheduler for the whole cluster, and the next grant comes when that pause
// ends. (An attempt the gate let through ungoverned, grant id "", backs off
// as without a gate.)

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/backoff.h"
#include "worker/agents/chat_types.h"
#include "worker/agents/llm_call_gate.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

struct ChatClientOptions {
  // e.g. "https://api.openai.com/v1", "http://127.0.0.1:8080/v1"; a trailing
  // '/' is ignored.
  std::string base_url;
  // Sent as "Authorization: Bearer ..." unless empty (local servers).
  std::string api_key;
  // One HTTP exchange, streaming included.
  absl::Duration request_timeout = absl::Seconds(300);
  absl::Duration connect_timeout = absl::Seconds(10);
  // Tries per Complete call, the first included.
  int max_attempts = 4;
  // The most bytes one answer may have (the agent file's maxResponseBytes).
  size_t max_response_bytes = 16 << 20;
  BackoffOptions backoff = {absl::Seconds(1), absl::Seconds(30)};
  // Asked before every attempt, told after it; must outlive the client.
  // Null: calls go out ungoverned.
  LlmCallGate* gate = nullptr;
};

class ChatClient {
 public:
  explicit ChatClient(ChatClientOptions options);

  // "POST <base_url>/chat/completions", the prefix of every error.
  const std::string& endpoint() const { return endpoint_; }

  // Sends `request` and returns the model's answer. With request.stream,
  // content deltas go to `on_delta` as they arrive (a server that answers
  // with plain JSON instead gets its whole content forwarded once).
  // `deadline` bounds the call, retries included. `cancel` may be null.
  // Errors, each starting with endpoint():
  //   CANCELLED           the token fired (promptly, even mid-transfer)
  //   UNAVAILABLE         cannot connect; 5xx after max_attempts
  //   RESOURCE_EXHAUSTED  429 after max_attempts
  //   DEADLINE_EXCEEDED   request_timeout or `deadline` passed
  //   INVALID_ARGUMENT    4xx (bad model, bad request) or a bad tool schema
  //   UNAUTHENTICATED / PERMISSION_DENIED  401 / 403
  //   INTERNAL            the answer is not a chat completion (malformed JSON)
  //   FAILED_PRECONDITION / RESOURCE_EXHAUSTED  the gate refused the call
  //                       ("the scheduler refused the call: <its text>");
  //                       no request was made
  absl::StatusOr<ChatResponse> Complete(
      const ChatRequest& request, const CancelToken* cancel,
      const std::function<void(absl::string_view)>& on_delta = nullptr,
      absl::Time deadline = absl::InfiniteFuture()) const;

 private:
  const ChatClientOptions options_;
  const std::string url_;
  const std::string endpoint_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_CHAT_CLIENT_H_
