#ifndef TASKBOARD_COMMON_OTEL_TRACER_H_
#define TASKBOARD_COMMON_OTEL_TRACER_H_

// Starts spans: new ids, the head-sampling decision (sampler.h) and, for a
// sampled span, the sink its SpanData goes to when it ends. A tracer without
// a sink (tracing off) makes non-recording spans that carry their parent's
// context unchanged, so a traceparent received is still passed on.
//
// Thread-safe: StartSpan may be called from any thread. The tracer and its
// sink must outlive the spans it started.

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/otel/attributes.h"
#include "common/otel/sampler.h"
#include "common/otel/span.h"
#include "common/otel/span_context.h"
#include "common/otel/span_data.h"
#include "common/otel/span_sink.h"

namespace taskboard::otel {

class Tracer {
 public:
  // `sink` null: tracing off.
  Tracer(Sampler sampler, SpanSink* sink, SpanLimits limits = {});

  // A span named `name` (made valid UTF-8, bounded), child of `parent` when
  // that is valid, else the root of a new trace, starting at `start`
  // (InfinitePast, the default: now). Sampled as the sampler says; the
  // trace's tracestate goes with the parent's context.
  Span StartSpan(absl::string_view name, const SpanContext* parent = nullptr,
                 SpanKind kind = SpanKind::kInternal,
                 absl::Time start = absl::InfinitePast()) const;

  // A span whose ids were fixed before it starts: a run's span, whose
  // context is stored with the run so that spans made after a restart
  // still belong to it, and the spans whose ids are derived from it
  // (scheduler/engine/state/run_trace.h). No sampler is asked: it records
  // when tracing is on and `context` is sampled, with `parent` (invalid:
  // none) as its parent span; otherwise it only carries `context`.
  Span StartSpanWithContext(absl::string_view name, const SpanContext& context,
                            const SpanId& parent, bool parent_remote,
                            SpanKind kind = SpanKind::kInternal,
                            absl::Time start = absl::InfinitePast()) const;

  bool enabled() const { return sink_ != nullptr; }
  const Sampler& sampler() const { return sampler_; }
  const SpanLimits& limits() const { return limits_; }

 private:
  const Sampler sampler_;
  SpanSink* const sink_;
  const SpanLimits limits_;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACER_H_
