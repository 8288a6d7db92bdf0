#include "scheduler/schedules/fire_time.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/sha256.h"

namespace taskboard::schedules {

absl::Duration JitterFor(absl::string_view schedule_id, absl::Time nominal,
                         absl::Duration max_jitter) {
  if (max_jitter <= absl::ZeroDuration()) return absl::ZeroDuration();
  const std::string digest = Sha256Hex(absl::StrCat(schedule_id, "\n", absl::ToUnixNanos(nominal)));
  uint64_t bits = 0;
  // 16 hex digits: the digest's first 64 bits.
  if (!absl::SimpleHexAtoi(absl::string_view(digest).substr(0, 16), &bits)) {
    return absl::ZeroDuration();
  }
  // A fraction in [0, 1) from the top 53 bits, exact in a double.
  const double fraction = static_cast<double>(bits >> 11) / static_cast<double>(uint64_t{1} << 53);
  return absl::Floor(max_jitter * fraction, absl::Milliseconds(1));
}

std::string FormatFireTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", time, absl::UTCTimeZone());
}

std::string FireIdempotencyKey(absl::string_view schedule_id, absl::Time nominal) {
  return absl::StrCat("schedule:", schedule_id, "@", FormatFireTime(nominal));
}

std::string TriggerIdempotencyKey(absl::string_view schedule_id, absl::Time at) {
  return absl::StrCat("schedule:", schedule_id, "/trigger@", FormatFireTime(at));
}

}  // namespace taskboard::schedules
