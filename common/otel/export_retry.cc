#include "common/otel/export_retry.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace taskboard::otel {

AttemptOutcome ClassifyAttempt(const absl::StatusOr<OtlpHttpResponse>& result) {
  if (!result.ok()) {
    return result.status().code() == absl::StatusCode::kCancelled ? AttemptOutcome::kCancelled
                                                                  : AttemptOutcome::kRetryable;
  }
  const int status = result->status;
  if (status >= 200 && status < 300) return AttemptOutcome::kExported;
  if (status == 429 || status == 502 || status == 503 || status == 504) {
    return AttemptOutcome::kRetryable;
  }
  return AttemptOutcome::kRefused;
}

absl::Duration BackoffDelay(const RetryPolicy& policy, int failed, double jitter) {
  const double factor = std::pow(1.5, std::max(0, failed - 1));
  const absl::Duration full = std::min(policy.max_backoff, policy.initial_backoff * factor);
  return full * (0.5 + 0.5 * std::clamp(jitter, 0.0, 1.0));
}

std::optional<absl::Duration> ParseRetryAfter(absl::string_view value) {
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &seconds) || seconds < 0) {
    return std::nullopt;
  }
  return absl::Seconds(seconds);
}

}  // namespace taskboard::otel
