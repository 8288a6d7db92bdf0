#ifndef TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_
#define TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_

// The fake LLM's `POST /chat/completions` without the HTTP: enforces the rate
// limits, validates the request body, picks the answering rule, renders the
// reply and logs the request. Thread-safe; the server only moves bytes and
// sleeps `delay_ms`.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "tools/fake-llm/completion_renderer.h"
#include "tools/fake-llm/rate_limits.h"
#include "tools/fake-llm/request_facts.h"
#include "tools/fake-llm/request_log.h"
#include "tools/fake-llm/rule_book.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {

// The request log's `rule_name` for a request refused by the rate limits.
inline constexpr char kRateLimitRuleName[] = "rate-limit";

struct ChatAnswer {
  HttpReply reply;
  // How long to wait before sending the reply (the rule's delay_ms).
  int64_t delay_ms = 0;
};

class ChatHandler {
 public:
  // `log` must outlive the handler. `now` supplies `created` and the time
  // the rate limits count with, so tests can move it.
  ChatHandler(Script script, RequestLog* log, std::function<absl::Time()> now,
              const RateLimitOptions& limits = {});

  // Every chat request counts against the rate limits; one without room gets
  // a 429 before anything else (no rule matches or is used). Past them: 400
  // for a body that is not JSON or has no `messages` list; 500 naming the
  // last user message when no rule answers; else the rule's reply. Every
  // reply carries the x-ratelimit-limit-* headers of the limits set.
  ChatAnswer Handle(absl::string_view path, absl::string_view body);

  // {"requests": N, "admitted": N, "rate_limited": N}: every chat request so
  // far, those past the rate limits (whatever their answer) and those refused
  // by them. A request still being decided counts only in `requests`.
  Json Stats() const;

 private:
  struct Admission {
    // Set when the limits refused the request; nothing else happened then.
    std::optional<RateLimitRefusal> refusal;
    // The answering rule, already counted as used.
    std::optional<size_t> rule;
  };

  // Checks the limits at the request's arrival and, when they admit it,
  // chooses the rule for `facts` (none for a malformed request) and charges
  // the limits one request and the tokens the rule's reply reports. One lock
  // around all three: a concurrent request is checked against a bucket that
  // already holds this one's tokens, and a refused one never uses a rule.
  Admission Admit(const std::optional<RequestFacts>& facts);

  RuleBook rules_;
  RequestLog* const log_;
  const std::function<absl::Time()> now_;
  absl::Mutex admission_mutex_;
  RateLimits limits_ ABSL_GUARDED_BY(admission_mutex_);
  const std::vector<std::pair<std::string, std::string>> limit_headers_;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> admitted_{0};
  std::atomic<int64_t> rate_limited_{0};
  std::atomic<int64_t> tool_calls_{0};
};

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_
