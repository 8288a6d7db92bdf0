#ifndef TASKBOARD_COMMON_OTEL_SPAN_SINK_H_
#define TASKBOARD_COMMON_OTEL_SPAN_SINK_H_

// Where ended spans go: the batch processor (batch_span_processor.h) in the
// services, a recorder in tests. Implementations are thread-safe and must
// return without waiting for I/O: they are called from the scheduler's
// engine loop and the workers' task threads.

#include "common/otel/span_data.h"

namespace taskboard::otel {

class SpanSink {
 public:
  virtual ~SpanSink() = default;
  // Takes a finished, sampled span. Never blocks on the network.
  virtual void OnEnd(SpanData span) = 0;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SPAN_SINK_H_
