#ifndef TASKBOARD_COMMON_OTEL_SPAN_H_
#define TASKBOARD_COMMON_OTEL_SPAN_H_

// A span in progress, made by Tracer::StartSpan (tracer.h). A sampled span
// records its attributes, events and status and, at End, hands its SpanData
// to the tracer's sink; an unsampled one only carries its context, so its
// children and the traceparent sent onwards still belong to the trace, and
// every setter is a no-op. A span dropped without End exports nothing.
//
// Not thread-safe: one owner at a time (it may be moved to another thread).
// Setters bound what they keep (SpanLimits), so a span's memory is bounded.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/otel/attributes.h"
#include "common/otel/span_context.h"
#include "common/otel/span_data.h"
#include "common/otel/span_sink.h"

namespace taskboard::otel {

class Span {
 public:
  // Not recording, with an invalid context.
  Span() = default;
  // A moved-from span is not recording (it cannot End twice).
  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  // What children and outgoing traceparents use; valid unless tracing gave
  // none (no parent and no tracing).
  const SpanContext& context() const { return data_.context; }
  // Sampled and not yet ended.
  bool recording() const { return sink_ != nullptr; }

  Span& SetAttribute(absl::string_view key, absl::string_view value);
  Span& SetAttribute(absl::string_view key, const char* value);
  Span& SetAttribute(absl::string_view key, int64_t value);
  Span& SetAttribute(absl::string_view key, int value);
  Span& SetAttribute(absl::string_view key, double value);
  Span& SetAttribute(absl::string_view key, bool value);
  Span& SetAttribute(absl::string_view key, std::vector<std::string> value);

  // Adds an event at `time` (InfinitePast, the default: now); beyond
  // SpanLimits::max_events, or when its name alone would pass
  // max_span_bytes, it is counted as dropped. Its attributes are bounded
  // as the span's are.
  void AddEvent(absl::string_view name, std::vector<Attribute> attributes = {},
                absl::Time time = absl::InfinitePast());

  // OTel's rules: kUnset is ignored, kOk is final, the message is kept only
  // with kError.
  void SetStatus(SpanStatusCode code, absl::string_view message = "");

  // Ends the span at `end` (InfinitePast, the default: now) and exports it
  // if sampled; later calls do nothing. A span that does not record never
  // reads the clock.
  void End(absl::Time end = absl::InfinitePast());

 private:
  friend class Tracer;

  void Set(absl::string_view key, AttributeValue value);

  SpanData data_;
  // Null unless recording.
  SpanSink* sink_ = nullptr;
  const SpanLimits* limits_ = nullptr;
  // What attributes and events may still take (SpanLimits::max_span_bytes).
  size_t budget_ = 0;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SPAN_H_
