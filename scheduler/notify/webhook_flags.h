#ifndef TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_FLAGS_H_
#define TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_FLAGS_H_

// The scheduler's --approval-webhook* flags (docs/services.md) as parsed,
// and their check at start: what main turns into the notifier's options and
// intake's allow-list. Errors name the flag; the scheduler exits 2 on them.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/notify/webhook_notifier.h"

namespace taskboard::notify {

struct WebhookFlags {
  std::string url;          // --approval-webhook
  std::string secret_file;  // --approval-webhook-secret-file
  // --approval-webhook-allow, split at commas.
  std::vector<std::string> allow;
  int attempts = 5;      // --approval-webhook-attempts
  int64_t queue = 1000;  // --approval-webhook-queue
};

// Fills `options` (url, secret, attempts, queue) and `allow`.
// INVALID_ARGUMENT naming the flag: a URL or prefix that is not http(s)
// (common/webhook_url.h); a secret file that is missing, unreadable or empty
// (its trailing newlines do not count).
absl::Status ApplyWebhookFlags(const WebhookFlags& flags, WebhookNotifierOptions& options,
                               std::vector<std::string>& allow);

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_FLAGS_H_
