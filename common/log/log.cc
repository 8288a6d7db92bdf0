#include "common/log/log.h"

#include "absl/time/clock.h"

namespace taskboard::log {

Line::Line(Level level, absl::string_view msg) : enabled_(Enabled(level)) {
  if (!enabled_) return;
  record_.time = absl::Now();
  record_.level = level;
  record_.msg = std::string(msg);
}

Line::~Line() {
  if (enabled_) Write(std::move(record_));
}

Line& Line::With(absl::string_view key, absl::string_view value) {
  if (enabled_) record_.fields[std::string(key)] = std::string(value);
  return *this;
}

Line& Line::With(absl::string_view key, const char* value) {
  return With(key, absl::string_view(value != nullptr ? value : ""));
}

Line& Line::With(absl::string_view key, const absl::Status& status) {
  if (enabled_) record_.fields[std::string(key)] = status.ToString();
  return *this;
}

Line& Line::WithNonEmpty(absl::string_view key, absl::string_view value) {
  return value.empty() ? *this : With(key, value);
}

Line& Line::Fields(const Json& object) {
  if (!enabled_ || !object.is_object()) return *this;
  for (const auto& [key, value] : object.items()) record_.fields[key] = value;
  return *this;
}

}  // namespace taskboard::log
