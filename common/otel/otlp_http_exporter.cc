#include "common/otel/otlp_http_exporter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/otel/curl_otlp_transport.h"
#include "common/utf8.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace taskboard::otel {
namespace {

// How much of an error answer goes into ExportResult::last_error.
constexpr size_t kErrorExcerptBytes = 200;

std::vector<std::string> HeaderLines(const OtlpExporterOptions& options) {
  std::vector<std::string> lines = {"Content-Type: application/x-protobuf"};
  for (const auto& [name, value] : options.headers)
    lines.push_back(absl::StrCat(name, ": ", value));
  return lines;
}

// The spans a 2xx answer says were rejected (OTLP partial success); 0 when
// the body is empty or not an ExportTraceServiceResponse.
int64_t RejectedSpans(const OtlpHttpResponse& response, int64_t batch_size) {
  if (response.body.empty()) return 0;
  opentelemetry::proto::collector::trace::v1::ExportTraceServiceResponse answer;
  if (!answer.ParseFromString(response.body)) return 0;
  return std::clamp<int64_t>(answer.partial_success().rejected_spans(), 0, batch_size);
}

std::string DescribeFailure(const absl::StatusOr<OtlpHttpResponse>& result) {
  if (!result.ok()) return std::string(result.status().message());
  std::string excerpt = ToValidUtf8(result->body.substr(0, kErrorExcerptBytes));
  return excerpt.empty() ? absl::StrCat("HTTP ", result->status)
                         : absl::StrCat("HTTP ", result->status, ": ", excerpt);
}

}  // namespace

OtlpHttpExporter::OtlpHttpExporter(OtlpExporterOptions options,
                                   std::unique_ptr<OtlpTransport> transport,
                                   ExportCounters* counters)
    : options_(std::move(options)),
      header_lines_(HeaderLines(options_)),
      transport_(transport != nullptr ? std::move(transport)
                                      : std::make_unique<CurlOtlpTransport>()),
      counters_(counters) {}

ExportResult OtlpHttpExporter::Export(absl::Span<const SpanData> spans,
                                      const absl::Notification& cancel) {
  ExportResult result;
  const int64_t size = static_cast<int64_t>(spans.size());
  if (size == 0) return result;
  OtlpHttpRequest request;
  request.url = options_.url;
  request.headers = header_lines_;
  request.body = EncodeExportRequest(options_.resource, options_.scope, spans);
  const RetryPolicy& retry = options_.retry;
  const absl::Time deadline = absl::Now() + retry.max_elapsed;
  for (int attempt = 1;; ++attempt) {
    if (cancel.HasBeenNotified()) {
      result.cancelled = size;
      return result;
    }
    request.timeout =
        std::max(absl::Milliseconds(1), std::min(options_.timeout, deadline - absl::Now()));
    absl::StatusOr<OtlpHttpResponse> answer = transport_->Post(request, cancel);
    result.attempts = attempt;
    const AttemptOutcome outcome = ClassifyAttempt(answer);
    if (counters_ != nullptr) counters_->ExportAttempt(outcome);
    switch (outcome) {
      case AttemptOutcome::kExported:
        result.rejected = RejectedSpans(*answer, size);
        result.exported = size - result.rejected;
        result.last_error.clear();
        return result;
      case AttemptOutcome::kCancelled:
        result.cancelled = size;
        result.last_error = DescribeFailure(answer);
        return result;
      case AttemptOutcome::kRefused:
        result.failed = size;
        result.last_error = DescribeFailure(answer);
        return result;
      case AttemptOutcome::kRetryable:
        break;
    }
    result.last_error = DescribeFailure(answer);
    absl::Duration wait = BackoffDelay(retry, attempt, absl::Uniform(jitter_, 0.0, 1.0));
    if (answer.ok()) {
      if (std::optional<absl::Duration> after = ParseRetryAfter(answer->retry_after)) {
        wait = *after;
      }
    }
    if (attempt >= retry.max_attempts || absl::Now() + wait >= deadline) {
      result.failed = size;
      return result;
    }
    if (cancel.WaitForNotificationWithTimeout(wait)) {
      result.cancelled = size;
      return result;
    }
  }
}

}  // namespace taskboard::otel
