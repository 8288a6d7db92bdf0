#ifndef TASKBOARD_SCHEDULER_SCHEDULES_FIRE_TIME_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_FIRE_TIME_H_

// One time a schedule fires: the nominal time its spec names, and the actual
// time after jitter. The nominal time identifies the fire (its idempotency
// key, what catch-up and backfill talk about); the actual time is when it is
// due (docs/schedules.md#jitter).

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace taskboard::schedules {

struct FireTime {
  absl::Time nominal;
  absl::Time actual;

  friend bool operator==(const FireTime& a, const FireTime& b) {
    return a.nominal == b.nominal && a.actual == b.actual;
  }
};

// A delay in [0, max_jitter) that depends only on the schedule and the
// nominal time (SHA-256 of both), so every scheduler replica, and the same
// one after a restart, computes the same actual time. Zero when max_jitter
// is zero or negative.
absl::Duration JitterFor(absl::string_view schedule_id, absl::Time nominal,
                         absl::Duration max_jitter);

// The run idempotency key of a scheduled fire: one run per (schedule,
// nominal time), whichever scheduler starts it and however often it tries
// (docs/schedules.md#exactly-once). `schedule:<id>@<RFC 3339 UTC>`.
std::string FireIdempotencyKey(absl::string_view schedule_id, absl::Time nominal);

// The key of a manual trigger at `at`: a namespace of its own, so a trigger
// that lands on a scheduled fire's instant does not swallow that fire.
std::string TriggerIdempotencyKey(absl::string_view schedule_id, absl::Time at);

// `2026-03-08T07:30:00Z` (fractional seconds only when there are some).
std::string FormatFireTime(absl::Time time);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_FIRE_TIME_H_
