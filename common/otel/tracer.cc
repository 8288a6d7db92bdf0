#include "common/otel/tracer.h"

#include "absl/time/clock.h"

namespace taskboard::otel {

Tracer::Tracer(Sampler sampler, SpanSink* sink, SpanLimits limits)
    : sampler_(sampler), sink_(sink), limits_(limits) {}

Span Tracer::StartSpan(absl::string_view name, const SpanContext* parent, SpanKind kind,
                       absl::Time start) const {
  const bool has_parent = parent != nullptr && parent->IsValid();
  Span span;
  SpanContext& context = span.data_.context;
  if (sink_ == nullptr) {
    if (has_parent) context = *parent;
    return span;
  }
  context.trace_id = has_parent ? parent->trace_id : NewTraceId();
  context.span_id = NewSpanId();
  if (has_parent) context.trace_state = parent->trace_state;
  const bool sampled = sampler_.ShouldSample(context.trace_id, has_parent ? parent : nullptr);
  context.trace_flags = sampled ? kSampledFlag : 0;
  if (!sampled) return span;
  SpanData& data = span.data_;
  if (has_parent) {
    data.parent_span_id = parent->span_id;
    data.parent_remote = parent->remote;
  }
  data.name = BoundedUtf8(name, limits_.max_value_bytes);
  data.kind = kind;
  data.start_unix_nanos = absl::ToUnixNanos(start == absl::InfinitePast() ? absl::Now() : start);
  span.sink_ = sink_;
  span.limits_ = &limits_;
  span.budget_ = limits_.max_span_bytes;
  return span;
}

Span Tracer::StartSpanWithContext(absl::string_view name, const SpanContext& context,
                                  const SpanId& parent, bool parent_remote, SpanKind kind,
                                  absl::Time start) const {
  Span span;
  span.data_.context = context;
  if (sink_ == nullptr || !context.IsValid() || !context.sampled()) return span;
  SpanData& data = span.data_;
  if (parent.IsValid()) {
    data.parent_span_id = parent;
    data.parent_remote = parent_remote;
  }
  data.name = BoundedUtf8(name, limits_.max_value_bytes);
  data.kind = kind;
  data.start_unix_nanos = absl::ToUnixNanos(start == absl::InfinitePast() ? absl::Now() : start);
  span.sink_ = sink_;
  span.limits_ = &limits_;
  span.budget_ = limits_.max_span_bytes;
  return span;
}

}  // namespace taskboard::otel
