#ifndef TASKBOARD_COMMON_OTEL_SAMPLER_H_
#define TASKBOARD_COMMON_OTEL_SAMPLER_H_

// Head sampling: whether a new span is recorded and exported, decided when it
// starts (OTel's ParentBased(TraceIdRatioBased) and its always_on/off kin).
//
// The ratio decision is a pure function of the trace id, as the OTel
// specification's TraceIdRatioBased defines it: the rightmost 56 bits of the
// trace id are the randomness R, the ratio gives the threshold
// T = (1 - ratio) * 2^56, and R >= T samples. So every process that sees a
// run's trace id, the scheduler and each worker alike, makes the same
// decision for it without being told, and a trace sampled at some ratio is
// also sampled at any higher one. Parent-based, a span with a valid parent
// takes its parent's sampled flag instead, so the decision made at a trace's
// root (possibly in the caller's SDK) holds for all its spans.
//
// Immutable after construction; thread-safe.

#include <cstdint>

#include "common/otel/span_context.h"
#include "common/otel/trace_ids.h"

namespace taskboard::otel {

struct SamplerConfig {
  // Follow a valid parent's sampled flag (the parentbased_* samplers).
  bool parent_based = true;
  // The share of root traces sampled, in [0, 1] (clamped): always_on is 1,
  // always_off is 0.
  double ratio = 1.0;
};

class Sampler {
 public:
  explicit Sampler(SamplerConfig config = {});

  // Whether a span of trace `trace_id` is sampled; `parent` is its parent's
  // context, or null (or invalid) for a root span.
  bool ShouldSample(const TraceId& trace_id, const SpanContext* parent) const;
  // The ratio's decision alone.
  bool SampledByRatio(const TraceId& trace_id) const;

  const SamplerConfig& config() const { return config_; }

 private:
  SamplerConfig config_;
  // Sampled when the trace id's randomness is at least this; 2^56 samples
  // nothing.
  uint64_t threshold_;
};

// The rightmost 56 bits of `trace_id`, as an integer (W3C's random part).
uint64_t TraceIdRandomness(const TraceId& trace_id);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_SAMPLER_H_
