#include "scheduler/engine/state/run_trace.h"

#include <cstring>
#include <string>

#include "common/otel/trace_ids.h"

namespace taskboard::engine {
namespace {

template <typename Id>
Id IdFromBytes(const std::string& bytes) {
  Id id;
  if (bytes.size() == id.bytes.size()) std::memcpy(id.bytes.data(), bytes.data(), bytes.size());
  return id;
}

// FNV-1a over the parts, then SplitMix64's finalizer so that ids of similar
// names differ in every bit. A hash of our own, not absl::Hash: that one is
// seeded per process, and a successor scheduler must derive the same ids.
class IdHash {
 public:
  IdHash& Add(absl::string_view part) {
    for (unsigned char c : part) {
      hash_ ^= c;
      hash_ *= 0x100000001b3ULL;
    }
    // A separator, so ("ab", "c") and ("a", "bc") differ.
    hash_ ^= 0xff;
    hash_ *= 0x100000001b3ULL;
    return *this;
  }
  otel::SpanId SpanId() const {
    uint64_t z = hash_ + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    if (z == 0) z = 1;  // an all-zero span id is invalid
    otel::SpanId id;
    for (int i = 0; i < 8; ++i) id.bytes[i] = static_cast<uint8_t>(z >> (56 - 8 * i));
    return id;
  }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

otel::SpanContext Derived(const store::RunTrace& trace, const otel::SpanId& span_id) {
  otel::SpanContext context = RunSpanContext(trace);
  context.span_id = span_id;
  return context;
}

}  // namespace

store::RunTrace NewRunTrace(const otel::Sampler& sampler, const otel::SpanContext* parent) {
  const bool has_parent = parent != nullptr && parent->IsValid();
  const otel::TraceId trace_id = has_parent ? parent->trace_id : otel::NewTraceId();
  store::RunTrace trace;
  trace.set_trace_id(std::string(trace_id.Bytes()));
  trace.set_span_id(std::string(otel::NewSpanId().Bytes()));
  trace.set_sampled(sampler.ShouldSample(trace_id, has_parent ? parent : nullptr));
  if (has_parent) {
    trace.set_trace_state(parent->trace_state);
    trace.set_parent_span_id(std::string(parent->span_id.Bytes()));
    trace.set_parent_remote(parent->remote);
  }
  return trace;
}

void RenewRunSpan(store::RunTrace& trace) {
  if (IsTraced(trace)) trace.set_span_id(std::string(otel::NewSpanId().Bytes()));
}

bool IsTraced(const store::RunTrace& trace) { return RunSpanContext(trace).IsValid(); }

otel::SpanContext RunSpanContext(const store::RunTrace& trace) {
  otel::SpanContext context;
  context.trace_id = IdFromBytes<otel::TraceId>(trace.trace_id());
  context.span_id = IdFromBytes<otel::SpanId>(trace.span_id());
  context.trace_flags = trace.sampled() ? otel::kSampledFlag : 0;
  context.trace_state = trace.trace_state();
  return context;
}

otel::SpanId RunParentSpanId(const store::RunTrace& trace) {
  return IdFromBytes<otel::SpanId>(trace.parent_span_id());
}

otel::SpanContext PhaseSpanContext(const store::RunTrace& trace, absl::string_view phase_id) {
  return Derived(trace, IdHash().Add(trace.span_id()).Add("phase").Add(phase_id).SpanId());
}

otel::SpanContext AttemptSpanContext(const store::RunTrace& trace, absl::string_view task_id,
                                     int32_t attempt) {
  return Derived(trace, IdHash()
                            .Add(trace.span_id())
                            .Add("attempt")
                            .Add(task_id)
                            .Add(std::to_string(attempt))
                            .SpanId());
}

}  // namespace taskboard::engine
