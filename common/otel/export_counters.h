#ifndef TASKBOARD_COMMON_OTEL_EXPORT_COUNTERS_H_
#define TASKBOARD_COMMON_OTEL_EXPORT_COUNTERS_H_

// What happened to the spans handed to the exporter, for the services'
// Prometheus metrics (otel_metrics.h maps it to taskboard_otel_* families)
// and for tests. Every span the batch processor accepts or refuses ends up
// in exactly one count: exported, or dropped for one reason.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/otel/export_retry.h"

namespace taskboard::otel {

enum class DropReason {
  // The queue was full when the span ended (the collector is slow or down).
  kQueueFull,
  // Its batch was refused (a 4xx other than 429) or its retries ran out.
  kExportFailed,
  // The collector answered 2xx but listed it as rejected (partial success).
  kRejected,
  // Still queued, or ended, when shutdown's deadline passed.
  kShutdown,
};

// "queue_full", "export_failed", "rejected", "shutdown".
absl::string_view DropReasonLabel(DropReason reason);
// "exported", "retryable", "refused", "cancelled".
absl::string_view AttemptOutcomeLabel(AttemptOutcome outcome);

class ExportCounters {
 public:
  virtual ~ExportCounters() = default;
  // Thread-safe: called from the threads that end spans (kQueueFull) and
  // from the export thread. Must not block.
  virtual void SpansExported(int64_t count) = 0;
  virtual void SpansDropped(DropReason reason, int64_t count) = 0;
  // One HTTP attempt and how it went.
  virtual void ExportAttempt(AttemptOutcome outcome) = 0;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_EXPORT_COUNTERS_H_
