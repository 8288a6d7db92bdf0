#include "tools/cli/usage_since.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/duration_text.h"

namespace taskboard::cli {

absl::StatusOr<absl::Time> ParseUsageSince(absl::string_view text, absl::Time now) {
  // A day first. ParseTime takes the whole text or nothing, and refuses a
  // day that does not exist (2026-02-30) rather than rolling it over.
  absl::Time day;
  std::string error;
  if (absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &day, &error)) return day;
  const absl::StatusOr<absl::Duration> back = ParseDurationText(text);
  if (back.ok() && *back > absl::ZeroDuration()) return now - *back;
  return absl::InvalidArgumentError(
      absl::StrCat("--since '", text,
                   "' is neither a day nor a time back: write a UTC day such as 2026-10-26, or "
                   "how far back from now with a unit d, h, m or s, such as 7d, 24h or 1h30m"));
}

std::string UtcDayOf(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d", time, absl::UTCTimeZone());
}

}  // namespace taskboard::cli
