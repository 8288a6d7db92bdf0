#ifndef TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_RETRY_H_
#define TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_RETRY_H_

// When the approval webhook tries a delivery again, and after how long
// (docs/approvals.md#notify).

#include <cstdint>

#include "absl/status/statusor.h"

namespace taskboard::notify {

struct WebhookRetryPolicy {
  // Attempts per delivery, the first included (--approval-webhook-attempts).
  int attempts = 5;
  // The wait after the first failed attempt; doubles after each, up to max.
  int64_t base_ms = 1'000;
  int64_t max_ms = 60'000;
};

enum class AttemptOutcome {
  kDelivered,  // a 2xx answer
  kRetry,      // no answer (connection error, timeout), 5xx or 429
  kRefused,    // any other answer (4xx, 3xx: redirects are not followed)
};

// `result`: the HTTP status, or the transport's error.
AttemptOutcome ClassifyAttempt(const absl::StatusOr<int>& result);

// The wait before attempt `failed + 1`, after `failed` (>= 1) attempts
// failed: base_ms * 2^(failed-1), capped at max_ms.
int64_t RetryDelayMs(const WebhookRetryPolicy& policy, int failed);

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_RETRY_H_
