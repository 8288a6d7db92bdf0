#ifndef TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_TRANSPORT_H_
#define TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_TRANSPORT_H_

// How the approval webhook sends one POST: libcurl in the scheduler
// (curl_webhook_transport.h), a fake in tests.

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace taskboard::notify {

struct WebhookRequest {
  std::string url;
  // "Name: value" lines.
  std::vector<std::string> headers;
  std::string body;
  // The whole exchange, connecting included.
  absl::Duration timeout = absl::Seconds(10);
};

class WebhookTransport {
 public:
  virtual ~WebhookTransport() = default;
  // The HTTP status of the answer (any status is an answer). Errors:
  // UNAVAILABLE (cannot resolve or connect, the connection broke),
  // DEADLINE_EXCEEDED (no answer within the timeout), CANCELLED (`cancel`
  // became true: the scheduler is stopping). Thread-compatible: one call at a
  // time per transport.
  virtual absl::StatusOr<int> Post(const WebhookRequest& request,
                                   const std::atomic<bool>& cancel) = 0;
};

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_TRANSPORT_H_
