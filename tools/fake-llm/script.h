#ifndef TASKBOARD_TOOLS_FAKE_LLM_SCRIPT_H_
#define TASKBOARD_TOOLS_FAKE_LLM_SCRIPT_H_

// The fake LLM's script: an ordered list of rules, each a `match` (conditions
// on the chat request) and a `respond` (what to answer). The first rule whose
// conditions hold answers. tools/fake-llm/README.md documents the format.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::fake_llm {

// Conditions on a request; every condition given must hold.
struct MatchSpec {
  std::optional<std::string> model;
  std::optional<std::string> contains;
  std::optional<std::string> last_user_contains;
  std::optional<std::string> system_contains;
  std::optional<bool> has_tool_results;
  std::optional<std::string> tool_result_contains;
  std::optional<int64_t> turn;
  // Use the rule at most this many times; then it no longer answers.
  std::optional<int64_t> times;
  // Let the first `after` matching requests fall through to later rules.
  int64_t after = 0;
};

struct ToolCallSpec {
  std::string name;
  // JSON text sent as `function.arguments` (a script string is sent as is, so
  // a test can script invalid arguments).
  std::string arguments;
};

struct ErrorSpec {
  int status = 500;
  // Sent as the response body; nullopt: an OpenAI-style error object.
  std::optional<Json> body;
  std::optional<int64_t> retry_after_seconds;
};

struct ResponseSpec {
  std::optional<std::string> content;
  std::vector<ToolCallSpec> tool_calls;
  std::optional<ErrorSpec> error;
  bool malformed = false;
  // Sent as the body of a 200 (application/json, never streamed): text as
  // is, an object or list as JSON. For answers that parse but are not a chat
  // completion, e.g. `{"id": "x"}` without `choices`.
  std::optional<Json> raw_body;
  int64_t delay_ms = 0;
  // Reported usage; a missing count defaults to characters / 4.
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> completion_tokens;
  // Characters of content (or tool arguments) per streamed delta.
  int64_t chunk_chars = 8;
};

struct Rule {
  // Optional; shown in the request log next to the rule's index.
  std::string name;
  MatchSpec match;
  ResponseSpec respond;
};

struct Script {
  std::vector<Rule> rules;
};

// Decodes a script document: `{rules: [...]}` or a bare list of rules.
// INVALID_ARGUMENT listing every problem, one per line, each starting with its
// path (`rules[3].respond: ...`).
absl::StatusOr<Script> ParseScript(const Json& document);

// ParseScript over YAML or JSON text (JSON is YAML). A syntax error is one
// INVALID_ARGUMENT line naming its line and column.
absl::StatusOr<Script> ParseScriptText(absl::string_view text);

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_SCRIPT_H_
