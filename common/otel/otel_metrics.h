#ifndef TASKBOARD_COMMON_OTEL_OTEL_METRICS_H_
#define TASKBOARD_COMMON_OTEL_OTEL_METRICS_H_

// ExportCounters as Prometheus metrics (docs/observability.md#metrics),
// the same in both services:
//
//   taskboard_otel_spans_exported_total                  spans the collector accepted
//   taskboard_otel_spans_dropped_total{reason}           queue_full|export_failed|rejected|shutdown
//   taskboard_otel_export_attempts_total{outcome}        exported|retryable|refused|cancelled
//
// Every series is created at construction, so each hook is one atomic add:
// safe on the threads that end spans.

#include <array>
#include <cstdint>

#include "common/metrics/counter.h"
#include "common/metrics/registry.h"
#include "common/otel/export_counters.h"

namespace taskboard::otel {

class OtelExportMetrics : public ExportCounters {
 public:
  // Registers the families in `registry`, which must outlive this object.
  explicit OtelExportMetrics(metrics::Registry& registry);

  void SpansExported(int64_t count) override;
  void SpansDropped(DropReason reason, int64_t count) override;
  void ExportAttempt(AttemptOutcome outcome) override;

 private:
  metrics::Counter* exported_;
  std::array<metrics::Counter*, 4> dropped_;   // by DropReason
  std::array<metrics::Counter*, 4> attempts_;  // by AttemptOutcome
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_OTEL_METRICS_H_
