#include "common/otel/export_counters.h"

namespace taskboard::otel {

absl::string_view DropReasonLabel(DropReason reason) {
  switch (reason) {
    case DropReason::kQueueFull:
      return "queue_full";
    case DropReason::kExportFailed:
      return "export_failed";
    case DropReason::kRejected:
      return "rejected";
    case DropReason::kShutdown:
      return "shutdown";
  }
  return "unknown";
}

absl::string_view AttemptOutcomeLabel(AttemptOutcome outcome) {
  switch (outcome) {
    case AttemptOutcome::kExported:
      return "exported";
    case AttemptOutcome::kRetryable:
      return "retryable";
    case AttemptOutcome::kRefused:
      return "refused";
    case AttemptOutcome::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

}  // namespace taskboard::otel
