#include "common/otel/span_queue.h"

#include <algorithm>
#include <utility>

namespace taskboard::otel {

SpanQueue::SpanQueue(size_t capacity) : slots_(std::max<size_t>(1, capacity)) {}

bool SpanQueue::Push(SpanData&& span) {
  if (size_ == slots_.size()) return false;
  slots_[(head_ + size_) % slots_.size()] = std::move(span);
  ++size_;
  return true;
}

void SpanQueue::PopInto(size_t max, std::vector<SpanData>& out) {
  const size_t count = std::min(max, size_);
  for (size_t i = 0; i < count; ++i) {
    SpanData& slot = slots_[head_];
    out.push_back(std::move(slot));
    slot = SpanData{};  // release what the moved-from strings may still hold
    head_ = (head_ + 1) % slots_.size();
  }
  size_ -= count;
}

}  // namespace taskboard::otel
