#include "common/otel/span.h"

#include <utility>

#include "absl/time/clock.h"

namespace taskboard::otel {

Span::Span(Span&& other) noexcept
    : data_(std::move(other.data_)),
      sink_(std::exchange(other.sink_, nullptr)),
      limits_(other.limits_),
      budget_(other.budget_) {}

Span& Span::operator=(Span&& other) noexcept {
  if (this != &other) {
    data_ = std::move(other.data_);
    sink_ = std::exchange(other.sink_, nullptr);
    limits_ = other.limits_;
    budget_ = other.budget_;
  }
  return *this;
}

void Span::Set(absl::string_view key, AttributeValue value) {
  if (!recording()) return;
  otel::SetAttribute(data_.attributes, limits_->max_attributes, *limits_, key, std::move(value),
                     budget_);
}

Span& Span::SetAttribute(absl::string_view key, absl::string_view value) {
  if (recording()) Set(key, std::string(value));
  return *this;
}

Span& Span::SetAttribute(absl::string_view key, const char* value) {
  return SetAttribute(key, absl::string_view(value));
}

Span& Span::SetAttribute(absl::string_view key, int64_t value) {
  Set(key, value);
  return *this;
}

Span& Span::SetAttribute(absl::string_view key, int value) {
  Set(key, static_cast<int64_t>(value));
  return *this;
}

Span& Span::SetAttribute(absl::string_view key, double value) {
  Set(key, value);
  return *this;
}

Span& Span::SetAttribute(absl::string_view key, bool value) {
  Set(key, value);
  return *this;
}

Span& Span::SetAttribute(absl::string_view key, std::vector<std::string> value) {
  if (recording()) Set(key, std::move(value));
  return *this;
}

void Span::AddEvent(absl::string_view name, std::vector<Attribute> attributes, absl::Time time) {
  if (!recording()) return;
  if (data_.events.size() >= limits_->max_events) {
    ++data_.dropped_events;
    return;
  }
  SpanEvent event;
  event.name = BoundedUtf8(name, limits_->max_value_bytes);
  const size_t bytes = sizeof(SpanEvent) + event.name.size();
  if (bytes > budget_) {
    ++data_.dropped_events;
    return;
  }
  budget_ -= bytes;
  event.time_unix_nanos = absl::ToUnixNanos(time == absl::InfinitePast() ? absl::Now() : time);
  for (Attribute& attribute : attributes) {
    otel::SetAttribute(event.attributes, limits_->max_event_attributes, *limits_, attribute.key,
                       std::move(attribute.value), budget_);
  }
  data_.events.push_back(std::move(event));
}

void Span::SetStatus(SpanStatusCode code, absl::string_view message) {
  if (!recording() || code == SpanStatusCode::kUnset) return;
  if (data_.status == SpanStatusCode::kOk) return;
  data_.status = code;
  data_.status_message =
      code == SpanStatusCode::kError ? BoundedUtf8(message, limits_->max_value_bytes) : "";
}

void Span::End(absl::Time end) {
  if (!recording()) return;
  SpanSink* sink = std::exchange(sink_, nullptr);
  data_.end_unix_nanos = absl::ToUnixNanos(end == absl::InfinitePast() ? absl::Now() : end);
  // The context stays readable after End (for a late child); the rest goes.
  SpanContext context = data_.context;
  SpanData finished = std::move(data_);
  data_ = SpanData{};
  data_.context = std::move(context);
  sink->OnEnd(std::move(finished));
}

}  // namespace taskboard::otel
