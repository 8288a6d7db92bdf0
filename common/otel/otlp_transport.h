#ifndef TASKBOARD_COMMON_OTEL_OTLP_TRANSPORT_H_
#define TASKBOARD_COMMON_OTEL_OTLP_TRANSPORT_H_

// How the span exporter sends one OTLP/HTTP POST: libcurl in the services
// (curl_otlp_transport.h), a fake in tests.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace taskboard::otel {

struct OtlpHttpRequest {
  std::string url;
  // "Name: value" lines, Content-Type included.
  std::vector<std::string> headers;
  std::string body;
  // The whole exchange, connecting included.
  absl::Duration timeout = absl::Seconds(10);
};

struct OtlpHttpResponse {
  int status = 0;
  // At most 64 KiB of it (an ExportTraceServiceResponse or an error).
  std::string body;
  // The Retry-After header as sent, "" when absent.
  std::string retry_after;
};

class OtlpTransport {
 public:
  virtual ~OtlpTransport() = default;
  // Any HTTP status is a response. Errors: UNAVAILABLE (cannot resolve or
  // connect, the connection broke), DEADLINE_EXCEEDED (no complete answer
  // within the timeout), CANCELLED (`cancel` was notified: the exporter is
  // shutting down). Thread-compatible: one call at a time.
  virtual absl::StatusOr<OtlpHttpResponse> Post(const OtlpHttpRequest& request,
                                                const absl::Notification& cancel) = 0;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_OTLP_TRANSPORT_H_
