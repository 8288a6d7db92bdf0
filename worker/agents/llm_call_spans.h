#ifndef TASKBOARD_WORKER_AGENTS_LLM_CALL_SPANS_H_
#define TASKBOARD_WORKER_AGENTS_LLM_CALL_SPANS_H_

// The `chat <model>` spans of a traced llm agent run
// (docs/observability.md#worker-spans), named and attributed as the
// OpenTelemetry GenAI semantic conventions say: one span per model call
// (ChatClient::Complete, its retries included), with the model, the token
// usage and finish reason, the call's cost, and what the scheduler's
// governance did to it, which this learns by standing between the chat
// client and the task's gate. Prompt and completion text only when the
// task's trace says to capture them (TaskTrace::capture_content: the
// worker's --trace-capture-content and the tenant's switch; genai_content.h).
//
// One per run, used by the thread running it: Begin and Finish bracket each
// Complete call.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/otel/span.h"
#include "worker/agents/chat_types.h"
#include "worker/agents/llm_call_gate.h"
#include "worker/agents/task_trace.h"

namespace taskboard::worker {

class LlmCallSpans : public LlmCallGate {
 public:
  // `trace` and `inner` (null: no governance) must outlive this.
  LlmCallSpans(const TaskTrace& trace, LlmCallGate* inner) : trace_(trace), inner_(inner) {}

  // Starts the span of the call about to be made for `request`.
  void Begin(const ChatRequest& request);
  // Ends it with the answer (its usage, finish reason and `cost_usd`) or
  // the error.
  void Finish(const absl::StatusOr<ChatResponse>& response, double cost_usd);

  // Forwarded to the task's gate (none: ungoverned), timing the wait and
  // noting whether it granted, refused or did not govern.
  absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                      absl::Time deadline) override;
  void Report(const std::string& grant_id, const LlmCallPlan& plan, const LlmCallEnd& end) override;

 private:
  const TaskTrace& trace_;
  LlmCallGate* const inner_;
  otel::Span span_;
  // Of the current call: its HTTP attempts, their summed grant waits, and
  // the last governance answer (granted | refused | ungoverned).
  int attempts_ = 0;
  absl::Duration grant_wait_;
  std::string governance_ = "ungoverned";
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_LLM_CALL_SPANS_H_
