#ifndef TASKBOARD_COMMON_OTEL_OTLP_HTTP_EXPORTER_H_
#define TASKBOARD_COMMON_OTEL_OTLP_HTTP_EXPORTER_H_

// Sends a batch of spans to an OTLP/HTTP collector: one protobuf
// ExportTraceServiceRequest POSTed to the traces URL with
// `Content-Type: application/x-protobuf`, tried again on the answers the
// OTLP specification calls retryable (export_retry.h) until the batch's
// time bound or attempts run out. Waits between attempts end at once when
// the cancel notification fires (shutdown).
//
// Thread-compatible: the batch processor's export thread is its one caller.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/otel/export_counters.h"
#include "common/otel/export_retry.h"
#include "common/otel/otlp_encoding.h"
#include "common/otel/otlp_transport.h"
#include "common/otel/span_data.h"

namespace taskboard::otel {

struct OtlpExporterOptions {
  // The full traces URL: <endpoint>/v1/traces.
  std::string url;
  // Extra request headers (OTEL_EXPORTER_OTLP_HEADERS), name and value.
  std::vector<std::pair<std::string, std::string>> headers;
  // One attempt, connecting included (OTEL_EXPORTER_OTLP_TIMEOUT).
  absl::Duration timeout = absl::Seconds(10);
  RetryPolicy retry;
  Resource resource;
  InstrumentationScope scope;
};

// What became of one batch; the four counts add up to its size.
struct ExportResult {
  int64_t exported = 0;
  // Listed as rejected in a 2xx answer's partial_success.
  int64_t rejected = 0;
  // Refused, or retries spent.
  int64_t failed = 0;
  // Given up because of the cancel notification.
  int64_t cancelled = 0;
  int attempts = 0;
  // Why the last attempt failed ("" when it did not): "HTTP 400: ...",
  // "connection refused".
  std::string last_error;
};

class OtlpHttpExporter {
 public:
  // `transport` null: libcurl. `counters` may be null; it outlives this.
  OtlpHttpExporter(OtlpExporterOptions options, std::unique_ptr<OtlpTransport> transport,
                   ExportCounters* counters);

  ExportResult Export(absl::Span<const SpanData> spans, const absl::Notification& cancel);

  const OtlpExporterOptions& options() const { return options_; }

 private:
  const OtlpExporterOptions options_;
  const std::vector<std::string> header_lines_;
  std::unique_ptr<OtlpTransport> transport_;
  ExportCounters* const counters_;
  absl::BitGen jitter_;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_OTLP_HTTP_EXPORTER_H_
