#ifndef TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_METRICS_H_
#define TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_METRICS_H_

// The LLM governance metrics (docs/llm-governance.md#metrics, docs/metrics.md):
//
//   taskboard_llm_tokens_total{model,tenant,kind}   kind = input|output|cached
//   taskboard_llm_cost_usd_total{model,tenant}
//   taskboard_llm_requests_total{model,tenant,outcome}  outcome = ok|rate_limited|error
//   taskboard_llm_grant_wait_seconds{model}         ask -> grant, histogram
//   taskboard_llm_limit{model,kind}                 kind = rpm|tpm|concurrency, in force now
//   taskboard_llm_in_flight{model} / taskboard_llm_waiting{model}
//   taskboard_llm_budget_stops_total{scope,action}  scope = run|tenant, action = pause|fail
//
// Called on the engine's loop thread.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"
#include "scheduler/governance/llm_governor.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::engine {

class LlmMetrics {
 public:
  explicit LlmMetrics(metrics::Registry& registry);

  void CallBilled(const std::string& model, const std::string& tenant, const v1::Usage& usage,
                  int http_status);
  void Granted(const std::string& model, absl::Duration waited);
  void BudgetStop(const std::string& scope, const std::string& action);
  // After each batch that touched the governor.
  void UpdateModels(const std::vector<governance::ModelState>& models);

 private:
  metrics::Family<metrics::Counter>& tokens_;
  metrics::Family<metrics::Counter>& cost_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& grant_wait_;
  metrics::Family<metrics::Gauge>& limit_;
  metrics::Family<metrics::Gauge>& in_flight_;
  metrics::Family<metrics::Gauge>& waiting_;
  metrics::Family<metrics::Counter>& budget_stops_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_METRICS_H_
