#ifndef TASKBOARD_COMMON_OTEL_CURL_OTLP_TRANSPORT_H_
#define TASKBOARD_COMMON_OTEL_CURL_OTLP_TRANSPORT_H_

// OtlpTransport over libcurl. It keeps one connection to the collector
// between exports (keep-alive) and polls the cancel notification every few
// milliseconds, so a shutdown deadline interrupts an export at once.
// Redirects are not followed. Thread-compatible: the exporter's one thread
// uses it.

#include <memory>

#include "common/otel/otlp_transport.h"

namespace taskboard::otel {

class CurlOtlpTransport : public OtlpTransport {
 public:
  CurlOtlpTransport();
  ~CurlOtlpTransport() override;

  absl::StatusOr<OtlpHttpResponse> Post(const OtlpHttpRequest& request,
                                        const absl::Notification& cancel) override;

 private:
  struct Handles;
  std::unique_ptr<Handles> handles_;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_CURL_OTLP_TRANSPORT_H_
