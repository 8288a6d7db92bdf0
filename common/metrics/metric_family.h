#ifndef TASKBOARD_COMMON_METRICS_METRIC_FAMILY_H_
#define TASKBOARD_COMMON_METRICS_METRIC_FAMILY_H_

// A point-in-time copy of metric values, as Registry::Collect returns them and
// the text format serializes them (prometheus-cpp's MetricFamily/ClientMetric).
// Plain values: no locks, no references into the live metrics.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace taskboard::metrics {

// Label name -> value. std::map keeps names sorted, which gives children a
// stable identity and the exposition a stable label order.
using Labels = std::map<std::string, std::string>;

enum class MetricType { kCounter, kGauge, kHistogram };

struct HistogramBucket {
  double upper_bound = 0;
  // Observations <= upper_bound (cumulative, as exposed).
  uint64_t cumulative_count = 0;
};

struct ClientMetric {
  // The family's constant labels merged with the child's labels.
  Labels labels;
  // Counter and gauge.
  double value = 0;
  // Histogram: ascending bounds, the last one +Inf; count == last bucket's.
  std::vector<HistogramBucket> buckets;
  double sum = 0;
  uint64_t count = 0;
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kCounter;
  std::vector<ClientMetric> metrics;
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_METRIC_FAMILY_H_
