#ifndef TASKBOARD_COMMON_OTEL_EXPORT_RETRY_H_
#define TASKBOARD_COMMON_OTEL_EXPORT_RETRY_H_

// When the span exporter tries a batch again, and after how long: the
// OTLP/HTTP specification's retryable answers (429, 502, 503, 504, and no
// answer at all) with exponential backoff and jitter, honouring Retry-After,
// all within a bound per batch. Pure functions; thread-safe.

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/otel/otlp_transport.h"

namespace taskboard::otel {

struct RetryPolicy {
  // Attempts per batch, the first included.
  int max_attempts = 5;
  // The wait after the first failure; times 1.5 after each, up to max.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(5);
  // The most time one batch may take, its attempts and waits together
  // (OTEL_BSP_EXPORT_TIMEOUT): past it the batch is dropped.
  absl::Duration max_elapsed = absl::Seconds(30);
};

enum class AttemptOutcome {
  kExported,   // a 2xx answer
  kRetryable,  // no answer (connection refused or broken, timeout), 429, 502, 503, 504
  kRefused,    // any other answer: the collector will not take this batch
  kCancelled,  // the exporter is shutting down
};

AttemptOutcome ClassifyAttempt(const absl::StatusOr<OtlpHttpResponse>& result);

// The wait before attempt `failed + 1` after `failed` (>= 1) failures:
// initial * 1.5^(failed-1), capped at max_backoff, then jittered to between
// half and all of it (`jitter` in [0, 1), drawn by the caller).
absl::Duration BackoffDelay(const RetryPolicy& policy, int failed, double jitter);

// Retry-After as seconds (the HTTP-date form is not used by collectors and
// is ignored); nullopt when absent or unreadable.
std::optional<absl::Duration> ParseRetryAfter(absl::string_view value);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_EXPORT_RETRY_H_
