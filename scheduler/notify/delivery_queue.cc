#include "scheduler/notify/delivery_queue.h"

#include <algorithm>
#include <utility>

namespace taskboard::notify {

std::vector<Delivery> DeliveryQueue::Push(Delivery delivery) {
  std::vector<Delivery> dropped;
  while (!queue_.empty() &&
         (queue_.size() >= capacity_ || bytes_ + delivery.body.size() > max_bytes_)) {
    bytes_ -= queue_.front().body.size();
    dropped.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  bytes_ += delivery.body.size();
  queue_.push_back(std::move(delivery));
  return dropped;
}

std::optional<Delivery> DeliveryQueue::TakeDue(int64_t now_ms) {
  // Linear: the queue holds at most --approval-webhook-queue deliveries and
  // is scanned once per attempt.
  auto due = std::find_if(queue_.begin(), queue_.end(),
                          [now_ms](const Delivery& delivery) { return delivery.due_ms <= now_ms; });
  if (due == queue_.end()) return std::nullopt;
  Delivery taken = std::move(*due);
  queue_.erase(due);
  bytes_ -= taken.body.size();
  return taken;
}

std::optional<int64_t> DeliveryQueue::NextDueMs() const {
  if (queue_.empty()) return std::nullopt;
  int64_t next = queue_.front().due_ms;
  for (const Delivery& delivery : queue_) next = std::min(next, delivery.due_ms);
  return next;
}

}  // namespace taskboard::notify
