#ifndef TASKBOARD_SCHEDULER_NOTIFY_CURL_WEBHOOK_TRANSPORT_H_
#define TASKBOARD_SCHEDULER_NOTIFY_CURL_WEBHOOK_TRANSPORT_H_

// The approval webhook's POST over libcurl: http and https only, no
// redirects followed (a redirect could lead past --approval-webhook-allow),
// the answer's body read and thrown away (at most 64 KiB of it).

#include "scheduler/notify/webhook_transport.h"

namespace taskboard::notify {

class CurlWebhookTransport : public WebhookTransport {
 public:
  absl::StatusOr<int> Post(const WebhookRequest& request, const std::atomic<bool>& cancel) override;
};

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_CURL_WEBHOOK_TRANSPORT_H_
