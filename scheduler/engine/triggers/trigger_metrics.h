#ifndef TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_METRICS_H_
#define TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_METRICS_H_

// The trigger metrics (docs/schedules.md#metrics, docs/metrics.md):
//
//   taskboard_trigger_deliveries_total{outcome}     accepted, deduped, refused, filtered
//   taskboard_trigger_rate_limited_total{scope}     refused for a rate: trigger or tenant
//   taskboard_triggers                              triggers held, gauge
//
// Called on the engine's loop thread.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/registry.h"

namespace taskboard::engine {

class TriggerMetrics {
 public:
  // Registers the families in `registry`, which must outlive this object;
  // every series starts at 0.
  explicit TriggerMetrics(metrics::Registry& registry);

  void Delivered(absl::string_view outcome);
  // `scope`: "trigger" or "tenant".
  void RateLimited(absl::string_view scope);
  void SetTriggers(int64_t count);

 private:
  metrics::Family<metrics::Counter>& deliveries_;
  metrics::Family<metrics::Counter>& rate_limited_;
  metrics::Family<metrics::Gauge>& triggers_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_METRICS_H_
