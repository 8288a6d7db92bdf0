#ifndef TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_SIGNATURE_H_
#define TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_SIGNATURE_H_

// The approval webhook's X-Taskboard-Signature (docs/approvals.md#notify):
// "sha256=" and the hex HMAC-SHA256, under the --approval-webhook-secret-file
// key, of "<timestamp>.<body>", where timestamp is the request's
// X-Taskboard-Timestamp (unix seconds). Signing the timestamp lets a
// receiver refuse replays of an old request.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::notify {

std::string WebhookSignature(absl::string_view secret, int64_t timestamp, absl::string_view body);

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_SIGNATURE_H_
