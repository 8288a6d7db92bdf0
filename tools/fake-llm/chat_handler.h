#ifndef TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_
#define TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_

// The fake LLM's `POST /chat/completions` without the HTTP: validates the
// request body, picks the answering rule, renders the reply and logs the
// request. Thread-safe; the server only moves bytes and sleeps `delay_ms`.

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/strings/string_view.h"
#include "tools/fake-llm/completion_renderer.h"
#include "tools/fake-llm/request_log.h"
#include "tools/fake-llm/rule_book.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {

struct ChatAnswer {
  HttpReply reply;
  // How long to wait before sending the reply (the rule's delay_ms).
  int64_t delay_ms = 0;
};

class ChatHandler {
 public:
  // `log` must outlive the handler. `now_seconds` supplies `created`.
  ChatHandler(Script script, RequestLog* log, std::function<int64_t()> now_seconds);

  // 400 for a body that is not JSON or has no `messages` list; 500 naming the
  // last user message when no rule answers; else the rule's reply.
  ChatAnswer Handle(absl::string_view path, absl::string_view body);

 private:
  RuleBook rules_;
  RequestLog* const log_;
  const std::function<int64_t()> now_seconds_;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> tool_calls_{0};
};

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_CHAT_HANDLER_H_
