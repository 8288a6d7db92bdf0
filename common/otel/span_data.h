#ifndef TASKBOARD_COMMON_OTEL_SPAN_DATA_H_
#define TASKBOARD_COMMON_OTEL_SPAN_DATA_H_

// A finished span as the exporter sends it: what the OTLP Span message
// holds, in Taskboard's types. Produced by Span::End (span.h) or built
// directly by code that reconstructs a span (a run's span after a restart);
// a plain value, moved through the export queue.

#include <cstdint>
#include <string>
#include <vector>

#include "common/otel/attributes.h"
#include "common/otel/span_context.h"
#include "common/otel/trace_ids.h"

namespace taskboard::otel {

// OTLP's SpanKind values.
enum class SpanKind : int {
  kInternal = 1,
  kServer = 2,
  kClient = 3,
  kProducer = 4,
  kConsumer = 5,
};

// OTLP's StatusCode values.
enum class SpanStatusCode : int {
  kUnset = 0,
  kOk = 1,
  kError = 2,
};

struct SpanEvent {
  int64_t time_unix_nanos = 0;
  std::string name;
  AttributeList attributes;
};

struct SpanData {
  // The span's own context: its trace and span id, flags and tracestate.
  SpanContext context;
  // Invalid (all zeroes) for a root span.
  SpanId parent_span_id;
  // Whether the parent came from another process.
  bool parent_remote = false;
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  int64_t start_unix_nanos = 0;
  int64_t end_unix_nanos = 0;
  AttributeList attributes;
  std::vector<SpanEvent> events;
  uint32_t dropped_events = 0;
  SpanStatusCode status = SpanStatusCode::kUnset;
  // Only with kError.
  std::string status_message;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SPAN_DATA_H_
