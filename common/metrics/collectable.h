#ifndef TASKBOARD_COMMON_METRICS_COLLECTABLE_H_
#define TASKBOARD_COMMON_METRICS_COLLECTABLE_H_

// What the Registry holds: anything that can snapshot itself as one metric
// family. Family<T> is the implementation; the interface keeps the registry
// free of the metric types.

#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

class Collectable {
 public:
  virtual ~Collectable() = default;
  // Thread-safe; may run while other threads update the metrics.
  virtual MetricFamily Collect() const = 0;
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_COLLECTABLE_H_
