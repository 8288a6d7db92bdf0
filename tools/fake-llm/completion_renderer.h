#ifndef TASKBOARD_TOOLS_FAKE_LLM_COMPLETION_RENDERER_H_
#define TASKBOARD_TOOLS_FAKE_LLM_COMPLETION_RENDERER_H_

// Turns a rule's `respond` into the HTTP reply OpenAI would send: a
// chat.completion object, its server-sent-event stream, a scripted error, a
// malformed body or a scripted raw body. Pure: ids and timestamps come in through the context.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {

struct CompletionContext {
  std::string id = "chatcmpl-fake-1";
  int64_t created = 0;
  std::string model = "fake-llm";
  // Tool calls are numbered from here: call_<n>, call_<n+1>, ...
  int64_t first_tool_call_number = 1;
  // Characters of the request's messages, for the default prompt_tokens.
  size_t prompt_chars = 0;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Non-empty for a streamed reply: each element one `data: ...\n\n` event,
  // sent as its own chunk (and `body` is empty).
  std::vector<std::string> events;
};

// `usage` for a completion: scripted counts, else characters / 4 rounded up.
Json RenderUsage(const ResponseSpec& respond, const CompletionContext& context);

// The tokens a reply to `respond` reports in its usage (prompt +
// completion), which the --tpm limit charges: RenderUsage's total for a
// completion, streamed or not; 0 for an error, malformed or raw body, which
// report none.
int64_t ReportedTokens(const ResponseSpec& respond, size_t prompt_chars);

// A complete `chat.completion` object for a content / tool_calls response.
Json RenderCompletion(const ResponseSpec& respond, const CompletionContext& context);

// The `chat.completion.chunk` events (without `data: ` framing) for a
// streamed content / tool_calls response: the role, content pieces of
// `chunk_chars` characters, each tool call's id and name then its argument
// pieces, the finish_reason, and with `include_usage` a usage-only chunk.
std::vector<Json> RenderChunks(const ResponseSpec& respond, const CompletionContext& context,
                               bool include_usage);

// The reply to a request answered by `respond` (error, malformed, raw body,
// or a completion, streamed when `stream`).
HttpReply RenderReply(const ResponseSpec& respond, const CompletionContext& context, bool stream,
                      bool include_usage);

// An OpenAI-style error reply: {"error": {message, type, param, code}}; an
// empty `code` or `param` is null.
HttpReply RenderError(int status, absl::string_view message, absl::string_view type,
                      absl::string_view code, absl::string_view param = "");

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_COMPLETION_RENDERER_H_
