#include "worker/agents/llm_call_spans.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/otel/span_data.h"
#include "worker/agents/genai_content.h"

namespace taskboard::worker {

void LlmCallSpans::Begin(const ChatRequest& request) {
  const std::string& model = request.model;
  // GenAI conventions: the name is "{gen_ai.operation.name} {gen_ai.request.model}",
  // and a call to a model server is a client span.
  span_ = trace_.StartChild(absl::StrCat("chat ", model), otel::SpanKind::kClient);
  attempts_ = 0;
  grant_wait_ = absl::ZeroDuration();
  governance_ = "ungoverned";
  if (!span_.recording()) return;
  // The llm agent speaks the OpenAI chat completions API, whatever server
  // answers it: the conventions' provider value for that API is "openai".
  // gen_ai.system is its older name, which most trace UIs still read.
  span_.SetAttribute("gen_ai.operation.name", "chat")
      .SetAttribute("gen_ai.provider.name", "openai")
      .SetAttribute("gen_ai.system", "openai")
      .SetAttribute("gen_ai.request.model", model);
  if (trace_.capture_content()) {
    // Opt-in content (docs/observability.md#prompt-and-completion-content).
    if (std::string system = GenAiSystemInstructions(request.messages); !system.empty()) {
      span_.SetAttribute("gen_ai.system_instructions", system);
    }
    if (std::string input = GenAiInputMessages(request.messages); !input.empty()) {
      span_.SetAttribute("gen_ai.input.messages", input);
    }
  }
}

void LlmCallSpans::Finish(const absl::StatusOr<ChatResponse>& response, double cost_usd) {
  if (!span_.recording()) return;
  span_.SetAttribute("taskboard.llm.attempts", attempts_)
      .SetAttribute("taskboard.llm.grant_wait_ms", absl::ToInt64Milliseconds(grant_wait_))
      .SetAttribute("taskboard.llm.governance", governance_);
  if (!response.ok()) {
    span_.SetAttribute("error.type", absl::StatusCodeToString(response.status().code()));
    span_.SetStatus(otel::SpanStatusCode::kError, response.status().message());
    span_.End();
    return;
  }
  if (!response->model.empty()) span_.SetAttribute("gen_ai.response.model", response->model);
  span_.SetAttribute("gen_ai.usage.input_tokens", response->prompt_tokens)
      .SetAttribute("gen_ai.usage.output_tokens", response->completion_tokens)
      .SetAttribute("taskboard.llm.cost", cost_usd);
  if (response->cached_tokens > 0) {
    span_.SetAttribute("gen_ai.usage.cache_read.input_tokens", response->cached_tokens);
  }
  if (!response->finish_reason.empty()) {
    span_.SetAttribute("gen_ai.response.finish_reasons",
                       std::vector<std::string>{response->finish_reason});
  }
  if (trace_.capture_content()) {
    span_.SetAttribute("gen_ai.output.messages", GenAiOutputMessages(*response));
  }
  span_.End();
}

absl::StatusOr<std::string> LlmCallSpans::Acquire(const LlmCallPlan& plan,
                                                  const CancelToken* cancel, absl::Time deadline) {
  ++attempts_;
  if (inner_ == nullptr) return std::string();
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> grant = inner_->Acquire(plan, cancel, deadline);
  grant_wait_ += absl::Now() - start;
  if (!grant.ok()) {
    // Cancelled or out of time while waiting is not the scheduler's no.
    if (absl::IsFailedPrecondition(grant.status()) || absl::IsResourceExhausted(grant.status())) {
      governance_ = "refused";
    }
  } else {
    governance_ = grant->empty() ? "ungoverned" : "granted";
  }
  return grant;
}

void LlmCallSpans::Report(const std::string& grant_id, const LlmCallPlan& plan,
                          const LlmCallEnd& end) {
  if (inner_ != nullptr) inner_->Report(grant_id, plan, end);
}

}  // namespace taskboard::worker
