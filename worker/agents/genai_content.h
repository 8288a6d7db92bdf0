#ifndef TASKBOARD_WORKER_AGENTS_GENAI_CONTENT_H_
#define TASKBOARD_WORKER_AGENTS_GENAI_CONTENT_H_

// Prompt and completion text as the OpenTelemetry GenAI semantic
// conventions put it on a `chat` span, for a worker started with
// --trace-capture-content and a run whose tenant allows it
// (docs/observability.md#prompt-and-completion-content): JSON text of the
// conventions' message shapes, each value cut to kMaxGenAiContentBytes at a
// UTF-8 boundary (a cut value is no longer valid JSON; the span's own value
// length limit may cut it shorter still).
//
//   gen_ai.system_instructions  [{"type":"text","content":...}]
//   gen_ai.input.messages       [{"role":"user","parts":[{"type":"text","content":...}]},
//                                {"role":"assistant","parts":[{"type":"tool_call",
//                                  "id":...,"name":...,"arguments":...}]},
//                                {"role":"tool","parts":[{"type":"tool_call_response",
//                                  "id":...,"response":...}]}]
//   gen_ai.output.messages      [{"role":"assistant","parts":[...],"finish_reason":...}]

#include <cstddef>
#include <string>
#include <vector>

#include "taskboard/v1/common.pb.h"
#include "worker/agents/chat_types.h"

namespace taskboard::worker {

// The most bytes one content attribute keeps: three of them stay well
// inside a span's 64 KiB budget (SpanLimits::max_span_bytes), so the usage
// attributes set after them are never crowded out.
inline constexpr size_t kMaxGenAiContentBytes = 16 * 1024;

// The system (and developer) messages of `messages`; "" when none.
std::string GenAiSystemInstructions(const std::vector<v1::ChatMessage>& messages);

// Every other message of `messages`, in order; "" when none.
std::string GenAiInputMessages(const std::vector<v1::ChatMessage>& messages);

// The model's answer with its finish reason.
std::string GenAiOutputMessages(const ChatResponse& response);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_GENAI_CONTENT_H_
