#include "common/otel/otel_metrics.h"

#include <string>

#include "common/metrics/builder.h"

namespace taskboard::otel {

OtelExportMetrics::OtelExportMetrics(metrics::Registry& registry) {
  exported_ = &metrics::BuildCounter()
                   .Name("taskboard_otel_spans_exported_total")
                   .Help("Spans the OTLP collector accepted.")
                   .Register(registry)
                   .Add({});
  auto& dropped = metrics::BuildCounter()
                      .Name("taskboard_otel_spans_dropped_total")
                      .Help(
                          "Spans not exported, by reason (queue_full: the export queue was "
                          "full; export_failed: the collector refused the batch or retries "
                          "ran out; rejected: the collector's partial success listed them; "
                          "shutdown: still queued when the process stopped).")
                      .Register(registry);
  for (DropReason reason : {DropReason::kQueueFull, DropReason::kExportFailed,
                            DropReason::kRejected, DropReason::kShutdown}) {
    dropped_[static_cast<int>(reason)] =
        &dropped.Add({{"reason", std::string(DropReasonLabel(reason))}});
  }
  auto& attempts = metrics::BuildCounter()
                       .Name("taskboard_otel_export_attempts_total")
                       .Help(
                           "OTLP export requests, by outcome (exported: 2xx; retryable: no "
                           "answer, 429, 502, 503 or 504; refused: any other answer; "
                           "cancelled: cut off by shutdown).")
                       .Register(registry);
  for (AttemptOutcome outcome : {AttemptOutcome::kExported, AttemptOutcome::kRetryable,
                                 AttemptOutcome::kRefused, AttemptOutcome::kCancelled}) {
    attempts_[static_cast<int>(outcome)] =
        &attempts.Add({{"outcome", std::string(AttemptOutcomeLabel(outcome))}});
  }
}

void OtelExportMetrics::SpansExported(int64_t count) {
  exported_->Increment(static_cast<double>(count));
}

void OtelExportMetrics::SpansDropped(DropReason reason, int64_t count) {
  dropped_[static_cast<int>(reason)]->Increment(static_cast<double>(count));
}

void OtelExportMetrics::ExportAttempt(AttemptOutcome outcome) {
  attempts_[static_cast<int>(outcome)]->Increment();
}

}  // namespace taskboard::otel
