#include "common/otel/sampler.h"

#include <algorithm>
#include <cmath>

namespace taskboard::otel {
namespace {

constexpr uint64_t kRandomnessRange = uint64_t{1} << 56;

uint64_t Threshold(double ratio) {
  if (!(ratio > 0)) return kRandomnessRange;  // NaN too
  if (ratio >= 1) return 0;
  const long double rejected = (1.0L - static_cast<long double>(ratio)) * kRandomnessRange;
  return std::min<uint64_t>(kRandomnessRange, static_cast<uint64_t>(std::llround(rejected)));
}

}  // namespace

uint64_t TraceIdRandomness(const TraceId& trace_id) {
  uint64_t value = 0;
  for (size_t i = 9; i < 16; ++i) value = value << 8 | trace_id.bytes[i];
  return value;
}

Sampler::Sampler(SamplerConfig config) : config_(config), threshold_(Threshold(config.ratio)) {
  config_.ratio = std::isnan(config.ratio) ? 0.0 : std::clamp(config.ratio, 0.0, 1.0);
}

bool Sampler::SampledByRatio(const TraceId& trace_id) const {
  return TraceIdRandomness(trace_id) >= threshold_;
}

bool Sampler::ShouldSample(const TraceId& trace_id, const SpanContext* parent) const {
  if (config_.parent_based && parent != nullptr && parent->IsValid()) return parent->sampled();
  return SampledByRatio(trace_id);
}

}  // namespace taskboard::otel
