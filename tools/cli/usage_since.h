#ifndef TASKBOARD_TOOLS_CLI_USAGE_SINCE_H_
#define TASKBOARD_TOOLS_CLI_USAGE_SINCE_H_

// The `--since` of `taskboard usage`: a UTC day as the usage book keeps them
// ("2026-10-26"), or how far back from now ("7d", "24h", "1h30m",
// common/duration_text.h), so both "this month" and "the last week" are one
// flag.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace taskboard::cli {

// The instant to count from: midnight UTC of a day, or `now` minus a
// duration above 0. INVALID_ARGUMENT naming the text and both accepted
// forms otherwise.
absl::StatusOr<absl::Time> ParseUsageSince(absl::string_view text, absl::Time now);

// The UTC day `time` falls in, as GetUsage reports days: "2026-10-26".
std::string UtcDayOf(absl::Time time);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_USAGE_SINCE_H_
