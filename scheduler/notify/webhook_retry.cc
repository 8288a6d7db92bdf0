#include "scheduler/notify/webhook_retry.h"

#include <algorithm>

namespace taskboard::notify {

AttemptOutcome ClassifyAttempt(const absl::StatusOr<int>& result) {
  if (!result.ok()) return AttemptOutcome::kRetry;
  const int status = *result;
  if (status >= 200 && status < 300) return AttemptOutcome::kDelivered;
  if (status == 429 || status >= 500) return AttemptOutcome::kRetry;
  return AttemptOutcome::kRefused;
}

int64_t RetryDelayMs(const WebhookRetryPolicy& policy, int failed) {
  int64_t delay = std::max<int64_t>(policy.base_ms, 1);
  for (int i = 1; i < failed && delay < policy.max_ms; ++i) delay *= 2;
  return std::min(delay, policy.max_ms);
}

}  // namespace taskboard::notify
