#include "common/metrics/counter.h"

namespace taskboard::metrics {

void Counter::Increment(double amount) {
  // `!(amount >= 0)` also rejects NaN.
  if (!(amount >= 0)) return;
  value_.fetch_add(amount, std::memory_order_relaxed);
}

ClientMetric Counter::Collect() const {
  ClientMetric metric;
  metric.value = Value();
  return metric;
}

}  // namespace taskboard::metrics
