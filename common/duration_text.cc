#include "common/duration_text.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace taskboard {

absl::StatusOr<absl::Duration> ParseDurationText(absl::string_view text) {
  const auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a duration: write a number with a unit, d (days), h, m, "
                     "s or ms, e.g. 30d, 12h, 1h30m; 0 turns it off"));
  };
  absl::Duration duration;
  absl::string_view days = text;
  if (int64_t count = 0; absl::ConsumeSuffix(&days, "d")) {
    if (!absl::SimpleAtoi(days, &count) || count < 0 || count > 365'000) return invalid();
    duration = absl::Hours(24 * count);
  } else if (!absl::ParseDuration(text, &duration) || duration < absl::ZeroDuration() ||
             duration == absl::InfiniteDuration()) {
    return invalid();
  }
  return duration;
}

}  // namespace taskboard
