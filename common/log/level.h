#ifndef TASKBOARD_COMMON_LOG_LEVEL_H_
#define TASKBOARD_COMMON_LOG_LEVEL_H_

// The severity of a log line, lowest first. A process drops every line below
// its minimum level (--log-level) before formatting it.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kFatal = 4 };

// "debug", "info", "warn", "error" or "fatal": how a line names its level.
absl::string_view LevelName(Level level);

// The inverse of LevelName, case-insensitive ("warning" is accepted for
// "warn"). INVALID_ARGUMENT naming the value and the levels otherwise.
absl::StatusOr<Level> ParseLevel(absl::string_view name);

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_LEVEL_H_
