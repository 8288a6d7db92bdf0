#ifndef TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_SPEC_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_SPEC_H_

// When a schedule fires (docs/schedules.md#spec): any number of cron
// expressions, each in an IANA time zone, and fixed intervals with an
// offset; bounded by an optional start and end time; each fire delayed by a
// deterministic jitter. A time named by two items fires once.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/schedules/cron_expression.h"
#include "scheduler/schedules/fire_time.h"

namespace taskboard::schedules {

// Bounds on a spec, so one schedule cannot make every tick expensive.
inline constexpr int kMaxSpecItems = 32;           // cron entries plus intervals
inline constexpr int kMaxFireTimesPerCall = 1000;  // NextFireTimes' n
inline constexpr absl::Duration kMaxJitter = absl::Hours(24);
inline constexpr absl::Duration kMaxInterval = absl::Hours(24 * 366);

struct CronItem {
  CronExpression cron;
  std::string zone_name;  // as written, e.g. "Europe/Berlin"
  absl::TimeZone zone;
};

// Fires at every Unix epoch + offset + k * every (Temporal's interval
// spec), so `every: 1h, offset: 15m` is quarter past each hour in UTC.
struct IntervalItem {
  absl::Duration every;
  absl::Duration offset;
};

struct ScheduleSpec {
  std::vector<CronItem> crons;
  std::vector<IntervalItem> intervals;
  std::optional<absl::Time> start_time;  // no nominal time before it (inclusive)
  std::optional<absl::Time> end_time;    // no nominal time after it (inclusive)
  absl::Duration jitter = absl::ZeroDuration();
};

// INVALID_ARGUMENT naming the expression or the zone (and how to list the
// zones this machine knows: /usr/share/zoneinfo, package tzdata).
absl::StatusOr<CronItem> MakeCronItem(absl::string_view expression, absl::string_view zone_name);

// INVALID_ARGUMENT unless every is whole seconds in [1 s, 366 days] and
// offset whole seconds in [0, every).
absl::StatusOr<IntervalItem> MakeIntervalItem(absl::Duration every, absl::Duration offset);

// INVALID_ARGUMENT for a spec with no item or more than kMaxSpecItems, an
// end before the start, or a jitter outside [0, kMaxJitter].
absl::Status CheckScheduleSpec(const ScheduleSpec& spec);

// The first nominal time strictly after `after`; nullopt once past the end.
std::optional<absl::Time> NextNominalTime(const ScheduleSpec& spec, absl::Time after);

// Up to `n` (capped at kMaxFireTimesPerCall) fires with nominal times
// strictly after `after`, in nominal order, across all items, each time
// once. Fewer when the spec ends.
std::vector<FireTime> NextFireTimes(const ScheduleSpec& spec, absl::string_view schedule_id,
                                    absl::Time after, int n);

// The fire of one nominal time: its jittered actual time.
FireTime FireAt(const ScheduleSpec& spec, absl::string_view schedule_id, absl::Time nominal);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_SPEC_H_
