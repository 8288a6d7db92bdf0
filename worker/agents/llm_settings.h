#ifndef TASKBOARD_WORKER_AGENTS_LLM_SETTINGS_H_
#define TASKBOARD_WORKER_AGENTS_LLM_SETTINGS_H_

// The agent-file fields only llm agents have (docs/agents-llm.md), read by
// worker/agents/agent_file.cc. Each has a camelCase name like the other
// fields; the snake_case spellings used by OpenAI-style configs (base_url,
// api_key_env, max_turns, max_tokens, prior_work, input_per_mtok, ...) are
// accepted too, but not both for one field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"

namespace taskboard::worker {

// US dollars per million tokens.
struct ModelPrice {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
};

struct LlmSettings {
  // Empty: $OPENAI_BASE_URL, else https://api.openai.com/v1.
  std::string base_url;
  // The environment variable holding the API key (unset or empty: no key).
  std::string api_key_env = "OPENAI_API_KEY";
  // Model requests per task; a model still calling tools after that fails
  // the task with stop reason max_turns.
  int max_turns = 16;
  std::optional<double> temperature;
  std::optional<int64_t> max_tokens;
  // Whether the task's prior work goes into the prompt.
  bool prior_work = true;
  // Whether to stream (live output as the model writes).
  bool stream = true;
  absl::Duration request_timeout = absl::Seconds(300);
  // Tries per model request on 429 / 5xx, the first included.
  int max_attempts = 4;
  // The most bytes one model answer may have, streamed or not; a longer one
  // fails the task (the worker never holds an unbounded answer).
  int64_t max_response_bytes = 16 << 20;
  // Where the request carries the task's thinking level (thinking_level.h):
  // OpenAI's `reasoning_effort`, or a dotted path for providers that nest it.
  std::string reasoning_field = "reasoning_effort";
  // Model name -> price, for Usage.cost_usd (models not listed cost 0).
  absl::flat_hash_map<std::string, ModelPrice> pricing;
};

// The dollars `input_tokens` and `output_tokens` of `model` cost by the
// price table (0 for a model not in it), bounded as one call is billed
// (common/llm_call_usage.h).
double CostUsd(const LlmSettings& settings, absl::string_view model, int64_t input_tokens,
               int64_t output_tokens);

// Every field name ReadLlmSettings understands, both spellings.
const std::vector<std::string>& LlmFieldNames();

// Reads the llm fields of an agent file's decoded object into `settings`.
// INVALID_ARGUMENT naming the field (not the file) for a wrong type or
// value, for both spellings of one field, or, when !is_llm, for any llm
// field at all.
absl::Status ReadLlmSettings(const Json& doc, bool is_llm, LlmSettings* settings);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_LLM_SETTINGS_H_
