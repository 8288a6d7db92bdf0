#include "scheduler/engine/llm/llm_metrics.h"

#include "common/metrics/builder.h"

namespace taskboard::engine {
namespace {

// Grants are immediate when a model has room, and wait up to minutes behind
// a provider's 429: 100 us doubling up to about 7 min.
metrics::BucketBoundaries GrantWaitBuckets() { return metrics::ExponentialBuckets(0.0001, 2, 22); }

}  // namespace

LlmMetrics::LlmMetrics(metrics::Registry& registry)
    : tokens_(metrics::BuildCounter()
                  .Name("taskboard_llm_tokens_total")
                  .Help("Tokens billed by model calls, by model, tenant and kind (input, output, "
                        "cached: the part of input served from the provider's prompt cache).")
                  .Register(registry)),
      cost_(metrics::BuildCounter()
                .Name("taskboard_llm_cost_usd_total")
                .Help("Cost of model calls in USD (the --llm-limits price table, else the "
                      "agent file's), by model and tenant.")
                .Register(registry)),
      requests_(metrics::BuildCounter()
                    .Name("taskboard_llm_requests_total")
                    .Help("Model calls reported by workers, by model, tenant and outcome (ok, "
                          "rate_limited: the provider answered 429, error).")
                    .Register(registry)),
      grant_wait_(metrics::BuildHistogram()
                      .Name("taskboard_llm_grant_wait_seconds")
                      .Help("Time a model call waited for its grant, by model.")
                      .Register(registry)),
      limit_(metrics::BuildGauge()
                 .Name("taskboard_llm_limit")
                 .Help("The limit in force per model (kind rpm, tpm, concurrency; 0: none), "
                       "lowered for a minute after a provider's 429.")
                 .Register(registry)),
      in_flight_(metrics::BuildGauge()
                     .Name("taskboard_llm_in_flight")
                     .Help("Granted model calls not yet reported, by model.")
                     .Register(registry)),
      waiting_(metrics::BuildGauge()
                   .Name("taskboard_llm_waiting")
                   .Help("Model calls waiting for a grant, by model.")
                   .Register(registry)),
      budget_stops_(metrics::BuildCounter()
                        .Name("taskboard_llm_budget_stops_total")
                        .Help("Model calls refused because a budget would be exceeded, by scope "
                              "(run, tenant) and action (pause, fail).")
                        .Register(registry)) {}

void LlmMetrics::CallBilled(const std::string& model, const std::string& tenant,
                            const v1::Usage& usage, int http_status) {
  const metrics::Labels who = {{"model", model}, {"tenant", tenant}};
  auto tokens = [&](const char* kind, int64_t count) {
    metrics::Labels labels = who;
    labels["kind"] = kind;
    tokens_.Add(labels).Increment(static_cast<double>(count));
  };
  tokens("input", usage.input_tokens());
  tokens("output", usage.output_tokens());
  tokens("cached", usage.cache_read_tokens());
  cost_.Add(who).Increment(usage.cost_usd());
  metrics::Labels outcome = who;
  outcome["outcome"] = http_status == 429                        ? "rate_limited"
                       : http_status >= 200 && http_status < 300 ? "ok"
                                                                 : "error";
  requests_.Add(outcome).Increment();
}

void LlmMetrics::Granted(const std::string& model, absl::Duration waited) {
  grant_wait_.Add({{"model", model}}, GrantWaitBuckets()).Observe(absl::ToDoubleSeconds(waited));
}

void LlmMetrics::BudgetStop(const std::string& scope, const std::string& action) {
  budget_stops_.Add({{"scope", scope}, {"action", action}}).Increment();
}

void LlmMetrics::UpdateModels(const std::vector<governance::ModelState>& models) {
  for (const governance::ModelState& model : models) {
    limit_.Add({{"model", model.model}, {"kind", "rpm"}}).Set(model.rpm);
    limit_.Add({{"model", model.model}, {"kind", "tpm"}}).Set(model.tpm);
    limit_.Add({{"model", model.model}, {"kind", "concurrency"}}).Set(model.concurrency);
    in_flight_.Add({{"model", model.model}}).Set(model.in_flight);
    waiting_.Add({{"model", model.model}}).Set(model.waiting);
  }
}

}  // namespace taskboard::engine
