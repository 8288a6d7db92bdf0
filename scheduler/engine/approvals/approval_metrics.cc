#include "scheduler/engine/approvals/approval_metrics.h"

#include "common/metrics/builder.h"

namespace taskboard::engine {
namespace {

// People answer in seconds to days: 1 s doubling up to about 6 days.
metrics::BucketBoundaries WaitBuckets() { return metrics::ExponentialBuckets(1, 2, 20); }

}  // namespace

ApprovalMetrics::ApprovalMetrics(metrics::Registry& registry)
    : pending_(metrics::BuildGauge()
                   .Name("taskboard_approvals_pending")
                   .Help("Approval tasks waiting for a decision, by tenant.")
                   .Register(registry)),
      oldest_(metrics::BuildGauge()
                  .Name("taskboard_approval_oldest_pending_seconds")
                  .Help("Age of the oldest approval waiting for a decision (0: none).")
                  .Register(registry)),
      decided_(metrics::BuildCounter()
                   .Name("taskboard_approvals_decided_total")
                   .Help("Approvals decided, by decision (approve, reject, choice: an extra "
                         "choice; timeout_approve, timeout_reject, timeout_fail: onTimeout "
                         "decided).")
                   .Register(registry)),
      wait_(metrics::BuildHistogram()
                .Name("taskboard_approval_wait_seconds")
                .Help("How long decided approvals waited for their decision.")
                .Register(registry)),
      deliveries_(metrics::BuildCounter()
                      .Name("taskboard_approval_webhook_deliveries_total")
                      .Help("Approval webhook deliveries by outcome (delivered; retried: an "
                            "attempt failed and another follows; failed: attempts spent or "
                            "refused; dropped: the queue was full).")
                      .Register(registry)) {
  oldest_.Add({}).Set(0);
  for (const char* decision :
       {"approve", "reject", "choice", "timeout_approve", "timeout_reject", "timeout_fail"}) {
    decided_.Add({{"decision", decision}});
  }
  wait_.Add({}, WaitBuckets());
  for (const char* outcome : {"delivered", "retried", "failed", "dropped"}) {
    deliveries_.Add({{"outcome", outcome}});
  }
}

void ApprovalMetrics::UpdatePending(const std::map<std::string, int64_t>& pending,
                                    absl::Duration oldest) {
  for (auto& [tenant, gauge] : tenants_) {
    if (pending.count(tenant) == 0) gauge->Set(0);
  }
  for (const auto& [tenant, count] : pending) {
    metrics::Gauge*& gauge = tenants_[tenant];
    if (gauge == nullptr) gauge = &pending_.Add({{"tenant", tenant}});
    gauge->Set(static_cast<double>(count));
  }
  oldest_.Add({}).Set(absl::ToDoubleSeconds(oldest));
}

void ApprovalMetrics::Decided(absl::string_view decision, absl::Duration waited) {
  decided_.Add({{"decision", std::string(decision)}}).Increment();
  wait_.Add({}, WaitBuckets()).Observe(absl::ToDoubleSeconds(waited));
}

void ApprovalMetrics::Delivery(absl::string_view outcome, int64_t count) {
  deliveries_.Add({{"outcome", std::string(outcome)}}).Increment(static_cast<double>(count));
}

}  // namespace taskboard::engine
