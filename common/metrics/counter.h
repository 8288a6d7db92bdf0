#ifndef TASKBOARD_COMMON_METRICS_COUNTER_H_
#define TASKBOARD_COMMON_METRICS_COUNTER_H_

// A monotonically increasing value (requests served, tasks failed). Lock-free:
// one atomic add per Increment. Thread-safe.

#include <atomic>

#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

class Counter {
 public:
  static constexpr MetricType kType = MetricType::kCounter;

  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void Increment() { Increment(1.0); }
  // Negative or NaN `amount`s are ignored: a counter never goes down (use a
  // Gauge for values that do).
  void Increment(double amount);

  double Value() const { return value_.load(std::memory_order_relaxed); }
  ClientMetric Collect() const;

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_COUNTER_H_
