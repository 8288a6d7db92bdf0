#ifndef TASKBOARD_TESTS_UNIT_ENGINE_TRACES_RECORDING_SPAN_SINK_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_TRACES_RECORDING_SPAN_SINK_H_

// Keeps every span that ends, for tests of the scheduler's spans; the
// engine ends them on its commit thread, so it locks.

#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/otel/span_sink.h"

namespace taskboard::engine::testing {

class RecordingSpanSink : public otel::SpanSink {
 public:
  void OnEnd(otel::SpanData span) override {
    absl::MutexLock lock(&mu_);
    spans_.push_back(std::move(span));
  }
  std::vector<otel::SpanData> spans() const {
    absl::MutexLock lock(&mu_);
    return spans_;
  }
  // The spans named `name`.
  std::vector<otel::SpanData> Named(const std::string& name) const {
    std::vector<otel::SpanData> named;
    for (otel::SpanData& span : spans()) {
      if (span.name == name) named.push_back(std::move(span));
    }
    return named;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<otel::SpanData> spans_ ABSL_GUARDED_BY(mu_);
};

// The value of string attribute `key`, or "<absent>".
inline std::string StringAttribute(const otel::SpanData& span, const std::string& key) {
  for (const otel::Attribute& attribute : span.attributes.items) {
    if (attribute.key != key) continue;
    if (const auto* text = std::get_if<std::string>(&attribute.value)) return *text;
    return "<not a string>";
  }
  return "<absent>";
}

inline int64_t IntAttribute(const otel::SpanData& span, const std::string& key) {
  for (const otel::Attribute& attribute : span.attributes.items) {
    if (attribute.key != key) continue;
    if (const auto* number = std::get_if<int64_t>(&attribute.value)) return *number;
  }
  return -1;
}

inline std::vector<std::string> EventNames(const otel::SpanData& span) {
  std::vector<std::string> names;
  for (const otel::SpanEvent& event : span.events) names.push_back(event.name);
  return names;
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_TRACES_RECORDING_SPAN_SINK_H_
