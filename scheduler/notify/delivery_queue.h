#ifndef TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_
#define TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_

// The approval webhook's pending deliveries, new and waiting to be retried,
// bounded in count (--approval-webhook-queue) and in bytes (prompts and
// form values can be large): when full, the oldest are dropped so the
// newest news gets through and memory stays bounded whatever the receiver
// or the flows do. Not thread-safe (the notifier locks around it).

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

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
  // At most `capacity` deliveries whose bodies hold at most `max_bytes` in
  // all (one larger delivery is still kept, alone).
  DeliveryQueue(size_t capacity, size_t max_bytes)
      : capacity_(capacity == 0 ? 1 : capacity), max_bytes_(max_bytes) {}

  // Adds `delivery`, dropping the oldest first as long as there would be too
  // many or too many bytes; returns those dropped, the oldest first.
  std::vector<Delivery> Push(Delivery delivery);
  // Removes and returns the oldest delivery due by `now_ms`, if any.
  std::optional<Delivery> TakeDue(int64_t now_ms);
  // The earliest due time, if any delivery is queued.
  std::optional<int64_t> NextDueMs() const;
  size_t size() const { return queue_.size(); }
  size_t bytes() const { return bytes_; }
  void Clear() {
    queue_.clear();
    bytes_ = 0;
  }

 private:
  size_t capacity_;
  size_t max_bytes_;
  size_t bytes_ = 0;  // of the bodies queued
  // In the order they were added: the front is the oldest.
  std::deque<Delivery> queue_;
};

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_DELIVERY_QUEUE_H_
