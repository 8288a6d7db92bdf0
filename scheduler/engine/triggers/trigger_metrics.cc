#include "scheduler/engine/triggers/trigger_metrics.h"

#include <string>

#include "common/metrics/builder.h"

namespace taskboard::engine {

TriggerMetrics::TriggerMetrics(metrics::Registry& registry)
    : deliveries_(metrics::BuildCounter()
                      .Name("taskboard_trigger_deliveries_total")
                      .Help("Events delivered to triggers, by outcome (accepted: a run started; "
                            "deduped: a redelivery; refused; filtered).")
                      .Register(registry)),
      rate_limited_(metrics::BuildCounter()
                        .Name("taskboard_trigger_rate_limited_total")
                        .Help("Deliveries refused for a rate limit, by scope (trigger: its "
                              "rate; tenant: --triggers-tenant-per-minute).")
                        .Register(registry)),
      triggers_(metrics::BuildGauge()
                    .Name("taskboard_triggers")
                    .Help("Event triggers the scheduler holds, of every tenant.")
                    .Register(registry)) {
  for (const char* outcome : {"accepted", "deduped", "refused", "filtered"}) {
    deliveries_.Add({{"outcome", outcome}});
  }
  for (const char* scope : {"trigger", "tenant"}) rate_limited_.Add({{"scope", scope}});
  triggers_.Add({}).Set(0);
}

void TriggerMetrics::Delivered(absl::string_view outcome) {
  deliveries_.Add({{"outcome", std::string(outcome)}}).Increment();
}

void TriggerMetrics::RateLimited(absl::string_view scope) {
  rate_limited_.Add({{"scope", std::string(scope)}}).Increment();
}

void TriggerMetrics::SetTriggers(int64_t count) {
  triggers_.Add({}).Set(static_cast<double>(count));
}

}  // namespace taskboard::engine
