#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_LLM_LIMITS_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_LLM_LIMITS_H_

// The scheduler's LLM governance configuration (--llm-limits FILE, reloaded
// on SIGHUP; docs/llm-governance.md): per model, the cluster-wide limits and
// the price; per tenant, its own share of those limits and its budget.
//
//   defaultOutputTokens: 1024          # assumed when a call sets no max_tokens
//   models:
//     gpt-4o-mini:
//       rpm: 500                       # requests per minute
//       tpm: 200000                    # input + output tokens per minute
//       concurrency: 16                # calls in flight at once
//       price: {input: 0.15, output: 0.60, cachedInput: 0.075}   # USD per 1M tokens
//   tenants:
//     acme:
//       budget: {usd: 50, tokens: 20000000, period: day}         # or month (UTC)
//       models:
//         gpt-4o-mini: {rpm: 100}      # acme's share, within the model's limits
//       traceContent: false            # never export acme's prompts and completions
//
// Every key is optional; an empty document (or `{}`) sets no limits. JSON is
// read as YAML's flow style, so either works. rpm, tpm, prices and usd are
// numbers >= 0; concurrency, tokens and defaultOutputTokens whole numbers
// (defaultOutputTokens from 1 to 10,000,000). A key with no value where a
// mapping goes (`models:`) is an empty mapping; where a number goes it is an
// error, as is any unknown key, so a typo cannot quietly lift a limit.
// Tenants are named as in the tokens file ([A-Za-z0-9._-]{1,64}). At most
// 10,000 models, 10,000 tenants and 10,000 models per tenant; at most 16 MiB.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::governance {

// Limits on one model; 0 is no limit.
struct ModelLimits {
  double rpm = 0;
  double tpm = 0;
  int concurrency = 0;
};

// USD per million tokens.
struct ModelPrice {
  double input = 0;
  double output = 0;
  // Input tokens the provider served from its prompt cache; unset: `input`.
  std::optional<double> cached_input;
};

enum class BudgetPeriod { kDay, kMonth };

// What a tenant may spend per period (UTC calendar day or month); 0 is no
// limit.
struct TenantBudget {
  double usd = 0;
  int64_t tokens = 0;
  BudgetPeriod period = BudgetPeriod::kDay;
};

struct TenantPolicy {
  // The tenant's own limits per model, applied within the model's.
  std::map<std::string, ModelLimits> models;
  std::optional<TenantBudget> budget;
  // false: the spans of this tenant's runs never carry prompt or completion
  // text, whatever a worker's --trace-capture-content says
  // (docs/observability.md#prompt-and-completion-content).
  bool trace_content = true;
};

struct LlmLimits {
  // By model name, as calls name it. Only models with some limit above 0: a
  // model listed with just a price is in `prices` alone, and the governor
  // need not track its calls.
  std::map<std::string, ModelLimits> models;
  // Models listed with a `price`.
  std::map<std::string, ModelPrice> prices;
  // Every tenant listed. Their `models` likewise hold only entries with some
  // limit above 0, and `budget` is set only when its usd or tokens is above 0.
  std::map<std::string, TenantPolicy> tenants;
  // Reserved for a call that does not cap its answer (max_tokens unset).
  int64_t default_output_tokens = 1024;
};

// Whether `limits` let the spans of `tenant`'s runs carry prompt and
// completion text: true unless the tenant is listed with traceContent: false.
bool TenantAllowsTraceContent(const LlmLimits& limits, const std::string& tenant);

// Parses the document (YAML or JSON). INVALID_ARGUMENT listing every
// problem, one per line, each with its path, e.g.
// "models.gpt-4o.rpm: must be a number >= 0, got \"fast\"" (the first 100
// problems, then a count of the rest); a syntax error or a document past the
// size or depth limits is the one problem.
absl::StatusOr<LlmLimits> ParseLlmLimits(absl::string_view text);

// Reads and parses `path`; errors start with the path (then ":\n" when they
// list several problems). NOT_FOUND when the file does not exist;
// INVALID_ARGUMENT when it cannot be read or parsed.
absl::StatusOr<LlmLimits> LoadLlmLimitsFile(const std::filesystem::path& path);

// The cost in USD of one call's tokens under `limits`' price table; nullopt
// when the model has no price there. `cached_tokens` are part of
// `input_tokens`, priced at cachedInput (else input); counts below 0 count
// as 0, and cached tokens as at most the input.
std::optional<double> PriceCall(const LlmLimits& limits, const std::string& model,
                                int64_t input_tokens, int64_t output_tokens, int64_t cached_tokens);

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_LLM_LIMITS_H_
