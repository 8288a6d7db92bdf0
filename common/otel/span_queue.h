#ifndef TASKBOARD_COMMON_OTEL_SPAN_QUEUE_H_
#define TASKBOARD_COMMON_OTEL_SPAN_QUEUE_H_

// The batch processor's queue of ended spans: a ring of fixed capacity, so
// its memory is bounded and a push never allocates a slot. A full queue
// refuses the span (the processor counts it as dropped) rather than making
// anyone wait. Not thread-safe: the processor locks around it.

#include <cstddef>
#include <vector>

#include "common/otel/span_data.h"

namespace taskboard::otel {

class SpanQueue {
 public:
  // `capacity` 0 is taken as 1.
  explicit SpanQueue(size_t capacity);

  // Takes `span` unless the queue is full (then `span` is left as it was
  // and false returned).
  bool Push(SpanData&& span);
  // Moves up to `max` of the oldest spans to the end of `out`.
  void PopInto(size_t max, std::vector<SpanData>& out);

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  bool empty() const { return size_ == 0; }

 private:
  std::vector<SpanData> slots_;
  size_t head_ = 0;  // the oldest span's slot
  size_t size_ = 0;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SPAN_QUEUE_H_
