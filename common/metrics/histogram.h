#ifndef TASKBOARD_COMMON_METRICS_HISTOGRAM_H_
#define TASKBOARD_COMMON_METRICS_HISTOGRAM_H_

// Counts observations (durations, sizes) into fixed buckets and keeps their
// sum, exposed as Prometheus' cumulative `_bucket{le=...}`, `_sum` and
// `_count`. Observe is lock-free: a binary search over the bounds, then one
// atomic add on the bucket and one on the sum. Thread-safe. A scrape that
// races with Observe may see the new bucket count without the new sum (never
// a bucket count without its `_count`, which is derived from the buckets).

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

// Upper bounds of the finite buckets, strictly ascending; +Inf is implicit.
using BucketBoundaries = std::vector<double>;

// `count` bounds: start, start*factor, start*factor^2, ... Needs start > 0,
// factor > 1 and count >= 1 (else a programmer error: aborts).
BucketBoundaries ExponentialBuckets(double start, double factor, int count);

// For latencies in seconds, from an in-process call (1 ms) to a long agent
// task (5 min): 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30
// 60 120 300.
const BucketBoundaries& DefaultLatencyBuckets();

class Histogram {
 public:
  static constexpr MetricType kType = MetricType::kHistogram;

  // `bounds` must be finite and strictly ascending (else a programmer error:
  // aborts); a trailing +Inf is accepted and dropped.
  explicit Histogram(BucketBoundaries bounds = DefaultLatencyBuckets());
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // NaN lands in the +Inf bucket (and makes the sum NaN), as in Prometheus'
  // Go client.
  void Observe(double value);

  const BucketBoundaries& bounds() const { return bounds_; }
  ClientMetric Collect() const;

 private:
  const BucketBoundaries bounds_;
  // bounds_.size() + 1 per-bucket (not cumulative) counts; the last is +Inf.
  const std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<double> sum_{0.0};
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_HISTOGRAM_H_
