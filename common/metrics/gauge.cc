#include "common/metrics/gauge.h"

namespace taskboard::metrics {

ClientMetric Gauge::Collect() const {
  ClientMetric metric;
  metric.value = Value();
  return metric;
}

}  // namespace taskboard::metrics
