#ifndef TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_NOTIFIER_H_
#define TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_NOTIFIER_H_

// The approval webhook (docs/approvals.md#notify): POSTs each approval
// event to --approval-webhook and to the run's own `approvalWebhook`, signed
// with the --approval-webhook-secret-file key, retrying what may succeed
// later.
//
// The engine calls Notify on its commit thread; Notify only queues (bounded,
// dropping the oldest) and returns. One sender thread of its own makes the
// HTTP calls, one at a time, taking whichever queued delivery is due first,
// so a receiver that keeps failing delays only its own retries. Delivery is
// at least once while the scheduler runs; Stop abandons what is still
// queued (the engine announces waiting approvals again after a restart).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/engine/approvals/approval_event.h"
#include "scheduler/engine/approvals/approval_metrics.h"
#include "scheduler/notify/delivery_queue.h"
#include "scheduler/notify/webhook_retry.h"
#include "scheduler/notify/webhook_transport.h"

namespace taskboard::notify {

struct WebhookNotifierOptions {
  // --approval-webhook: told of every approval; "": only the runs' own.
  std::string url;
  // The HMAC key (--approval-webhook-secret-file); "": requests are not
  // signed.
  std::string secret;
  WebhookRetryPolicy retry;
  // --approval-webhook-queue; and the most bytes of bodies queued.
  size_t queue_capacity = 1000;
  size_t queue_max_bytes = 64 << 20;
  absl::Duration attempt_timeout = absl::Seconds(10);
  // Null: no metrics. Outlives the notifier.
  engine::ApprovalMetrics* metrics = nullptr;
  // Null: libcurl. Outlives the notifier.
  WebhookTransport* transport = nullptr;
};

class WebhookNotifier : public engine::ApprovalNotifier {
 public:
  // Starts the sender thread.
  explicit WebhookNotifier(WebhookNotifierOptions options);
  ~WebhookNotifier() override;

  // Queues one delivery per URL the event goes to (--approval-webhook, and
  // the run's approvalWebhook when it is another URL). Never blocks on HTTP.
  void Notify(engine::ApprovalEvent event) override;
  // Cancels the attempt in flight, abandons the queue and joins the thread.
  void Stop();

 private:
  void Run();
  void Attempt(Delivery delivery);
  void Enqueue(Delivery delivery) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const WebhookNotifierOptions options_;
  std::unique_ptr<WebhookTransport> own_transport_;
  WebhookTransport* transport_;
  std::atomic<bool> stopping_{false};
  absl::Mutex mu_;
  absl::CondVar wake_;
  DeliveryQueue queue_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_WEBHOOK_NOTIFIER_H_
