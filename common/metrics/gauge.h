#ifndef TASKBOARD_COMMON_METRICS_GAUGE_H_
#define TASKBOARD_COMMON_METRICS_GAUGE_H_

// A value that goes up and down (queue depth, busy slots). Lock-free: one
// atomic operation per call. Thread-safe.

#include <atomic>

#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

class Gauge {
 public:
  static constexpr MetricType kType = MetricType::kGauge;

  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Increment(double amount = 1.0) { value_.fetch_add(amount, std::memory_order_relaxed); }
  void Decrement(double amount = 1.0) { value_.fetch_sub(amount, std::memory_order_relaxed); }

  double Value() const { return value_.load(std::memory_order_relaxed); }
  ClientMetric Collect() const;

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_GAUGE_H_
