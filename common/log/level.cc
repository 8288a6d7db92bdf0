#include "common/log/level.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace taskboard::log {

absl::string_view LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
    case Level::kFatal:
      return "fatal";
  }
  return "info";
}

absl::StatusOr<Level> ParseLevel(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (Level level : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError, Level::kFatal}) {
    if (lower == LevelName(level)) return level;
  }
  if (lower == "warning") return Level::kWarn;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level '", name, "'; use one of debug, info, warn, error, fatal"));
}

}  // namespace taskboard::log
