#ifndef TASKBOARD_WORKER_AGENTS_CHAT_JSON_H_
#define TASKBOARD_WORKER_AGENTS_CHAT_JSON_H_

// The JSON wire format of OpenAI-compatible chat completions: the request
// body and a complete (non-streamed) response. Streamed responses are
// assembled by worker/agents/chat_stream.h, which shares ReadUsage.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "worker/agents/chat_types.h"

namespace taskboard::worker {

// The body of POST /chat/completions. INVALID_ARGUMENT when a tool's
// parameters schema or the response schema is not a JSON object.
absl::StatusOr<std::string> ChatRequestBody(const ChatRequest& request);

// A complete response. INVALID_ARGUMENT saying what is wrong (not JSON, no
// choices, no message); the caller adds which endpoint sent it.
absl::StatusOr<ChatResponse> ParseChatResponse(absl::string_view body);

// Copies `usage.prompt_tokens`, `usage.completion_tokens`,
// `usage.prompt_tokens_details.cached_tokens` and `model` from a response or
// stream chunk (the last one carries the usage) into `response` when present.
// Token counts are held to what one call may bill (common/llm_call_usage.h):
// negative ones are 0, cached ones at most the prompt.
void ReadUsageAndModel(const Json& doc, ChatResponse* response);

// The string `key` of object `doc`, or "" when `doc` is not an object or the
// field is missing or not a string (servers differ in what they leave out).
std::string StringField(const Json& doc, const char* key);

// The first `max_bytes` of `text` on one line, for error messages.
std::string Snippet(absl::string_view text, size_t max_bytes = 200);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_CHAT_JSON_H_
