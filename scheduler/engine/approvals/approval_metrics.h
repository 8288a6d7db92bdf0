#ifndef TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_METRICS_H_
#define TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_METRICS_H_

// The approval metrics (docs/approvals.md#metrics, docs/metrics.md):
//
//   taskboard_approvals_pending{tenant}                 waiting now
//   taskboard_approval_oldest_pending_seconds           age of the oldest (0: none)
//   taskboard_approvals_decided_total{decision}         approve|reject|choice|
//                                                       timeout_approve|timeout_reject|timeout_fail
//   taskboard_approval_wait_seconds                     waiting time until decided, histogram
//   taskboard_approval_webhook_deliveries_total{outcome} delivered|retried|failed|dropped
//
// The gauges and decisions are updated on the engine's loop thread
// (ApprovalWatch); deliveries on the webhook sender's thread. Every hook is
// a family lookup plus an atomic, so both are safe.

#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"

namespace taskboard::engine {

class ApprovalMetrics {
 public:
  // Registers the families in `registry`, which must outlive this object;
  // the decision and delivery series start at 0.
  explicit ApprovalMetrics(metrics::Registry& registry);

  // Pending approvals per tenant ("" without authentication). A tenant left
  // out of `pending` that had some before is set to 0.
  void UpdatePending(const std::map<std::string, int64_t>& pending, absl::Duration oldest);
  // `decision` is one of the labels above (DecisionLabel).
  void Decided(absl::string_view decision, absl::Duration waited);
  // `outcome`: delivered, retried, failed or dropped.
  void Delivery(absl::string_view outcome, int64_t count = 1);

 private:
  metrics::Family<metrics::Gauge>& pending_;
  metrics::Family<metrics::Gauge>& oldest_;
  metrics::Family<metrics::Counter>& decided_;
  metrics::Family<metrics::Histogram>& wait_;
  metrics::Family<metrics::Counter>& deliveries_;
  // Tenants with a pending series, so one that drains is set back to 0.
  std::map<std::string, metrics::Gauge*> tenants_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_METRICS_H_
