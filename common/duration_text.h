#ifndef TASKBOARD_COMMON_DURATION_TEXT_H_
#define TASKBOARD_COMMON_DURATION_TEXT_H_

// Durations as operators write them in flags: "30d", "12h", "90m", "45s",
// "1h30m", or "0" (off). Abseil's ParseDuration knows no days, and retention
// is naturally counted in them.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace taskboard {

// INVALID_ARGUMENT naming the text and the accepted forms for anything else,
// negative durations included.
absl::StatusOr<absl::Duration> ParseDurationText(absl::string_view text);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_DURATION_TEXT_H_
