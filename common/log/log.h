#ifndef TASKBOARD_COMMON_LOG_LOG_H_
#define TASKBOARD_COMMON_LOG_LOG_H_

// Structured logging for Taskboard's services: one JSON object per line on
// stderr (docs/services.md#logs). A line is built and written in one
// statement:
//
//   log::Info("worker connected").With("worker_id", id).With("slots", n);
//
// The line is written when the temporary ends (at the `;`). Below the
// process's minimum level (--log-level) nothing is copied or formatted:
// With() returns at once. Arguments are still evaluated, so guard fields that
// are costly to compute with `if (log::Enabled(log::Level::kDebug))`.
//
// Level guide: debug for per-task events (they come thousands per second),
// info for per-run and per-worker events, warn for what an operator may need
// to look at, error for failures the process survives, fatal for the line
// written just before the process exits on purpose.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "common/log/format.h"
#include "common/log/level.h"
#include "common/log/logger.h"

namespace taskboard::log {

class Line {
 public:
  Line(Level level, absl::string_view msg);
  ~Line();  // writes the line, if its level is enabled

  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  // Adds a field; a key added twice keeps its first position and the last
  // value. Any type nlohmann-json converts (numbers, bools, strings,
  // containers, Json).
  template <typename T>
  Line& With(absl::string_view key, const T& value) {
    if (enabled_) record_.fields[std::string(key)] = value;
    return *this;
  }
  Line& With(absl::string_view key, absl::string_view value);
  Line& With(absl::string_view key, const char* value);
  // "CODE: message", the way absl::Status prints.
  Line& With(absl::string_view key, const absl::Status& status);

  // Adds the field only when `value` is not empty (an error, a reason).
  Line& WithNonEmpty(absl::string_view key, absl::string_view value);

  // Adds every member of a JSON object (e.g. a session's common fields).
  Line& Fields(const Json& object);

 private:
  const bool enabled_;
  Record record_;
};

inline Line Debug(absl::string_view msg) { return Line(Level::kDebug, msg); }
inline Line Info(absl::string_view msg) { return Line(Level::kInfo, msg); }
inline Line Warn(absl::string_view msg) { return Line(Level::kWarn, msg); }
inline Line Error(absl::string_view msg) { return Line(Level::kError, msg); }
// Only writes the line: the caller exits (or aborts) itself.
inline Line Fatal(absl::string_view msg) { return Line(Level::kFatal, msg); }

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_LOG_H_
