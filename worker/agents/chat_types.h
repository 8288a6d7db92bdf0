#ifndef TASKBOARD_WORKER_AGENTS_CHAT_TYPES_H_
#define TASKBOARD_WORKER_AGENTS_CHAT_TYPES_H_

// One OpenAI-compatible chat-completions exchange, independent of HTTP: what
// the llm agent asks (worker/agents/chat_client.h sends it) and what the
// model answered. Messages use the proto shape so the conversation can go
// into the task's execution record unchanged.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

struct ChatRequest {
  std::string model;
  std::vector<v1::ChatMessage> messages;
  // Offered for function calling; parameters_schema_json is the JSON schema
  // of the arguments ("" means an object with any fields).
  std::vector<v1::ToolDeclaration> tools;
  // When set, the answer must be JSON following this schema
  // (`response_format: {type: json_schema}`).
  std::string response_schema_json;
  std::optional<double> temperature;
  std::optional<int64_t> max_tokens;
  // How hard a reasoning model thinks ("" sends nothing), sent under
  // `reasoning_field`: a top-level key, or a dotted path for providers that
  // nest it (`reasoning.effort` becomes {"reasoning": {"effort": ...}}).
  std::string reasoning_effort;
  std::string reasoning_field = "reasoning_effort";
  // Ask for server-sent events and forward content deltas as they arrive.
  bool stream = false;
};

struct ChatResponse {
  // role "assistant": its content and any tool calls.
  v1::ChatMessage message;
  // stop | tool_calls | length | content_filter | ... ("" when not sent).
  std::string finish_reason;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  // Of prompt_tokens, those served from the provider's prompt cache
  // (OpenAI: usage.prompt_tokens_details.cached_tokens).
  int64_t cached_tokens = 0;
  // The model that answered, as the server names it ("" when not sent).
  std::string model;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_CHAT_TYPES_H_
