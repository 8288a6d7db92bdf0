#ifndef TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_
#define TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_

// The approval webhook's pending deliveries, new and waiting to be retried,
// bounded by --approval-webhook-queue: when full, the oldest is dropped so
// the newest news gets through and memory stays bounded whatever the
// receiver does. Not thread-safe (the notifier locks around it).

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace taskboard::notify {

struct Delivery {
  std::string id;
  std::string url;
  // Which setting named the URL, for logs (URLs may hold secrets):
  // --approval-webhook or approvalWebhook.
  std::string target;
  std::string event;  // approval.waiting | approval.decided
  std::string body;
  std::string run_id;
  std::string step_id;
  // Attempts made so far.
  int attempts = 0;
  // Not to be tried before this (unix ms).
  int64_t due_ms = 0;
};

class DeliveryQueue {
 public:
  explicit DeliveryQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Adds `delivery`; when the queue was full, drops the oldest first and
  // returns it.
  std::optional<Delivery> Push(Delivery delivery);
  // Removes and returns the oldest delivery due by `now_ms`, if any.
  std::optional<Delivery> TakeDue(int64_t now_ms);
  // The earliest due time, if any delivery is queued.
  std::optional<int64_t> NextDueMs() const;
  size_t size() const { return queue_.size(); }
  void Clear() { queue_.clear(); }

 private:
  size_t capacity_;
  // In the order they were added: the front is the oldest.
  std::deque<Delivery> queue_;
};

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_
