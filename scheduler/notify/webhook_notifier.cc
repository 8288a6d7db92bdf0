#include "scheduler/notify/webhook_notifier.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/notify/approval_payload.h"
#include "scheduler/notify/curl_webhook_transport.h"
#include "scheduler/notify/webhook_signature.h"

namespace taskboard::notify {

WebhookNotifier::WebhookNotifier(WebhookNotifierOptions options)
    : options_(std::move(options)), queue_(options_.queue_capacity, options_.queue_max_bytes) {
  if (options_.transport == nullptr) own_transport_ = std::make_unique<CurlWebhookTransport>();
  transport_ = options_.transport != nullptr ? options_.transport : own_transport_.get();
  thread_ = std::thread([this] { Run(); });
}

WebhookNotifier::~WebhookNotifier() { Stop(); }

void WebhookNotifier::Notify(engine::ApprovalEvent event) {
  std::vector<std::string> urls;
  if (!options_.url.empty()) urls.push_back(options_.url);
  if (!event.flow_webhook.empty() && event.flow_webhook != options_.url) {
    urls.push_back(event.flow_webhook);
  }
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  absl::MutexLock lock(&mu_);
  for (const std::string& url : urls) {
    Delivery delivery;
    delivery.id = DeliveryId(event, url);
    delivery.url = url;
    delivery.target = url == options_.url ? "--approval-webhook" : "approvalWebhook";
    delivery.event = std::string(engine::ApprovalEventName(event.kind));
    delivery.body = ApprovalPayloadJson(event, delivery.id);
    delivery.run_id = event.run_id;
    delivery.step_id = event.step_id;
    delivery.due_ms = now_ms;
    Enqueue(std::move(delivery));
  }
  wake_.Signal();
}

void WebhookNotifier::Enqueue(Delivery delivery) {
  for (const Delivery& dropped : queue_.Push(std::move(delivery))) {
    if (options_.metrics != nullptr) options_.metrics->Delivery("dropped");
    log::Warn(
        "approval webhook queue full: dropped the oldest delivery (raise "
        "--approval-webhook-queue, or fix the receiver)")
        .With("delivery", dropped.id)
        .With("event", dropped.event)
        .With("run_id", dropped.run_id)
        .With("step_id", dropped.step_id);
  }
}

void WebhookNotifier::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  if (queue_.size() > 0) {
    log::Warn(
        "approval webhook: deliveries abandoned at shutdown; waiting approvals are "
        "announced again at the next start")
        .With("deliveries", static_cast<int64_t>(queue_.size()));
    queue_.Clear();
  }
}

void WebhookNotifier::Run() {
  while (true) {
    std::optional<Delivery> next;
    {
      absl::MutexLock lock(&mu_);
      while (!stopping_) {
        const int64_t now_ms = absl::ToUnixMillis(absl::Now());
        next = queue_.TakeDue(now_ms);
        if (next.has_value()) break;
        std::optional<int64_t> due = queue_.NextDueMs();
        if (due.has_value()) {
          wake_.WaitWithTimeout(&mu_, absl::Milliseconds(*due - now_ms));
        } else {
          wake_.Wait(&mu_);
        }
      }
      if (stopping_) return;
    }
    Attempt(*std::move(next));
  }
}

void WebhookNotifier::Attempt(Delivery delivery) {
  const int64_t timestamp = absl::ToUnixSeconds(absl::Now());
  WebhookRequest request;
  request.url = delivery.url;
  request.timeout = options_.attempt_timeout;
  request.headers = {"Content-Type: application/json",
                     absl::StrCat("X-Taskboard-Event: ", delivery.event),
                     absl::StrCat("X-Taskboard-Delivery: ", delivery.id),
                     absl::StrCat("X-Taskboard-Timestamp: ", timestamp)};
  if (!options_.secret.empty()) {
    request.headers.push_back(absl::StrCat(
        "X-Taskboard-Signature: ", WebhookSignature(options_.secret, timestamp, delivery.body)));
  }
  request.body = delivery.body;
  absl::StatusOr<int> answer = transport_->Post(request, stopping_);
  ++delivery.attempts;
  if (stopping_) return;
  const AttemptOutcome outcome = ClassifyAttempt(answer);
  const std::string result =
      answer.ok() ? absl::StrCat("HTTP ", *answer) : std::string(answer.status().message());
  engine::ApprovalMetrics* metrics = options_.metrics;
  if (outcome == AttemptOutcome::kDelivered) {
    if (metrics != nullptr) metrics->Delivery("delivered");
    log::Debug("approval webhook delivered")
        .With("delivery", delivery.id)
        .With("event", delivery.event)
        .With("attempts", delivery.attempts);
    return;
  }
  if (outcome == AttemptOutcome::kRetry && delivery.attempts < options_.retry.attempts) {
    if (metrics != nullptr) metrics->Delivery("retried");
    const int64_t delay_ms = RetryDelayMs(options_.retry, delivery.attempts);
    log::Info("approval webhook attempt failed; retrying")
        .With("delivery", delivery.id)
        .With("target", delivery.target)
        .With("result", result)
        .With("attempt", delivery.attempts)
        .With("retry_in_ms", delay_ms);
    delivery.due_ms = absl::ToUnixMillis(absl::Now()) + delay_ms;
    absl::MutexLock lock(&mu_);
    Enqueue(std::move(delivery));
    return;
  }
  if (metrics != nullptr) metrics->Delivery("failed");
  log::Warn(outcome == AttemptOutcome::kRetry
                ? "approval webhook delivery failed: attempts spent (--approval-webhook-attempts)"
                : "approval webhook delivery refused by the receiver; not retried")
      .With("delivery", delivery.id)
      .With("event", delivery.event)
      .With("target", delivery.target)
      .With("run_id", delivery.run_id)
      .With("step_id", delivery.step_id)
      .With("result", result)
      .With("attempts", delivery.attempts);
}

}  // namespace taskboard::notify
