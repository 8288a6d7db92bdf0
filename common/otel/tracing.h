#ifndef TASKBOARD_COMMON_OTEL_TRACING_H_
#define TASKBOARD_COMMON_OTEL_TRACING_H_

// A process's tracing, assembled from TracingOptions: the tracer every span
// starts from and, when an endpoint is configured, the batch processor and
// OTLP/HTTP exporter behind it. With tracing off the tracer records nothing
// and passes received trace contexts through (tracer.h).
//
//   Tracer ──End──▶ BatchSpanProcessor ──▶ OtlpHttpExporter ──▶ OtlpTransport (libcurl)
//
// Thread-safe. A service creates one at start, after its flags, and calls
// Shutdown with a deadline when it stops.

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/otel/batch_span_processor.h"
#include "common/otel/export_counters.h"
#include "common/otel/otlp_transport.h"
#include "common/otel/tracer.h"
#include "common/otel/tracing_options.h"

namespace taskboard::otel {

class Tracing {
 public:
  // `counters` may be null, else outlives this; `transport` null: libcurl.
  // Errors: INVALID_ARGUMENT from BatchSpanProcessor::Create.
  static absl::StatusOr<std::unique_ptr<Tracing>> Create(
      TracingOptions options, ExportCounters* counters = nullptr,
      std::unique_ptr<OtlpTransport> transport = nullptr);
  // Shutdown(0) unless it ran.
  ~Tracing();

  const Tracer& tracer() const { return *tracer_; }
  bool enabled() const { return processor_ != nullptr; }

  // BatchSpanProcessor's Flush, Shutdown and stats; with tracing off Flush
  // is true and the stats are zero.
  bool Flush(absl::Duration timeout);
  void Shutdown(absl::Duration timeout);
  ExportStats stats() const;

 private:
  Tracing() = default;

  std::unique_ptr<BatchSpanProcessor> processor_;
  std::unique_ptr<Tracer> tracer_;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACING_H_
