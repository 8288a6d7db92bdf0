#ifndef TASKBOARD_COMMON_OTEL_SPAN_CONTEXT_H_
#define TASKBOARD_COMMON_OTEL_SPAN_CONTEXT_H_

// What identifies a span to its children, in this process or across one:
// the trace and span ids, the W3C trace flags (of which only `sampled` means
// anything here) and the opaque tracestate. A plain value.

#include <cstdint>
#include <string>

#include "common/otel/trace_ids.h"

namespace taskboard::otel {

// W3C trace-flags bit 0: the caller may have recorded its span.
inline constexpr uint8_t kSampledFlag = 0x01;

struct SpanContext {
  TraceId trace_id;
  SpanId span_id;
  uint8_t trace_flags = 0;
  // The W3C tracestate, carried as received (bounded: traceparent.h).
  std::string trace_state;
  // Whether the context came from another process (a traceparent).
  bool remote = false;

  // Both ids valid: a context children can hang under.
  bool IsValid() const { return trace_id.IsValid() && span_id.IsValid(); }
  bool sampled() const { return (trace_flags & kSampledFlag) != 0; }
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SPAN_CONTEXT_H_
