#include "common/metrics/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/metrics/programmer_error.h"

namespace taskboard::metrics {
namespace {

BucketBoundaries CheckedBounds(BucketBoundaries bounds) {
  if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) {
    bounds.pop_back();
  }
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i])) {
      DieOnProgrammerError(absl::StrCat("histogram bucket bound #", i, " is ", bounds[i],
                                        "; bounds must be finite (+Inf is implicit)"));
    }
    if (i > 0 && !(bounds[i - 1] < bounds[i])) {
      DieOnProgrammerError(absl::StrCat("histogram bucket bounds must be strictly ascending: #",
                                        i - 1, " is ", bounds[i - 1], ", #", i, " is ", bounds[i]));
    }
  }
  return bounds;
}

}  // namespace

BucketBoundaries ExponentialBuckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) {
    DieOnProgrammerError(absl::StrCat("ExponentialBuckets(", start, ", ", factor, ", ", count,
                                      ") needs start > 0, factor > 1 and count >= 1"));
  }
  BucketBoundaries bounds;
  bounds.reserve(count);
  double bound = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(bound);
    bound *= factor;
  }
  return bounds;
}

const BucketBoundaries& DefaultLatencyBuckets() {
  static const BucketBoundaries* const kBuckets = new BucketBoundaries{
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
  return *kBuckets;
}

Histogram::Histogram(BucketBoundaries bounds)
    : bounds_(CheckedBounds(std::move(bounds))),
      counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double value) {
  // The first bucket whose bound is >= value; none (or NaN) means +Inf.
  const auto bucket = std::partition_point(bounds_.begin(), bounds_.end(),
                                           [value](double bound) { return !(value <= bound); });
  counts_[bucket - bounds_.begin()].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

ClientMetric Histogram::Collect() const {
  ClientMetric metric;
  metric.buckets.reserve(bounds_.size() + 1);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    const double bound = i < bounds_.size() ? bounds_[i] : std::numeric_limits<double>::infinity();
    metric.buckets.push_back(HistogramBucket{bound, cumulative});
  }
  metric.count = cumulative;
  metric.sum = sum_.load(std::memory_order_relaxed);
  return metric;
}

}  // namespace taskboard::metrics
