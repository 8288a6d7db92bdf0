#ifndef TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_STATE_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_STATE_H_

// What the fire planner (fire_plan.h) needs to know about a schedule
// besides its spec: the runs it started that are still running, the fires
// waiting for them, how far fires have been decided, and whether it is
// paused. The engine will keep this durable; here it is a plain value.

#include <deque>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/schedules/fire_time.h"
#include "scheduler/schedules/overlap_policy.h"

namespace taskboard::schedules {

// How long after its (jittered) time a fire may still start, when the
// scheduler was down or behind (docs/schedules.md#catch-up).
inline constexpr absl::Duration kDefaultCatchupWindow = absl::Minutes(1);

struct SchedulePolicies {
  OverlapPolicy overlap = OverlapPolicy::kSkip;
  absl::Duration catchup_window = kDefaultCatchupWindow;
};

// A fire that will start a run, with the run's idempotency key.
struct PendingFire {
  FireTime fire;
  std::string idempotency_key;

  friend bool operator==(const PendingFire& a, const PendingFire& b) {
    return a.fire == b.fire && a.idempotency_key == b.idempotency_key;
  }
};

struct ScheduleState {
  // Runs this schedule started that have not ended.
  std::vector<std::string> running_run_ids;
  // Fires waiting for the running runs to end, oldest first.
  std::deque<PendingFire> buffered;
  // Every nominal time up to and including this one has been decided. A
  // new schedule starts at its creation time, so it does not fire for the
  // past.
  absl::Time processed_through = absl::InfinitePast();
  bool paused = false;
  std::string note;  // why it was paused or unpaused, as the user wrote it
};

// A schedule created at `now`.
ScheduleState NewScheduleState(absl::Time now);

// Pausing keeps the buffer (its fires wait); fires that come due while
// paused are recorded as skipped (kSkipPaused by PlanDueFires) and are not
// caught up on unpause. So the engine plans paused schedules too, and once
// more, still paused, just before it unpauses one.
void Pause(ScheduleState* state, std::string note);
void Unpause(ScheduleState* state, std::string note);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_STATE_H_
