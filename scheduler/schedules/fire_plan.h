#ifndef TASKBOARD_SCHEDULER_SCHEDULES_FIRE_PLAN_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_FIRE_PLAN_H_

// Decides, without doing anything, what a schedule does now: which fires
// start a run, which wait, which are skipped or missed, and which runs are
// cancelled (docs/schedules.md#overlap-policies, #catch-up, #backfill). The
// engine applies a plan (starts runs with the plan's idempotency keys,
// cancels, stores the new state) and owns the clock; these functions are
// pure so every policy can be tested on made-up times.
//
//   PlanDueFires   a tick: the fires due by `now`, each once, in order
//   PlanTrigger    "trigger now": one fire at `now`
//   PlanBackfill   every fire of a past range, bounded

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/schedules/schedule_spec.h"
#include "scheduler/schedules/schedule_state.h"

namespace taskboard::schedules {

// Decisions per plan; a tick that has more to decide says so (`more`) and
// the engine plans again, so ten days of missed minutely fires are recorded
// in bounded steps.
inline constexpr int kMaxDecisionsPerPlan = 1000;
// A backfill may name at most this many fires.
inline constexpr int kMaxBackfillFires = 1000;

enum class FireAction {
  kStart,        // start a run now, with the decision's idempotency key
  kBuffer,       // wait for the running runs to end
  kSkipOverlap,  // not run: another run was running (or a newer fire superseded it)
  kMissed,       // not run: due longer ago than the catch-up window
  kSkipPaused,   // not run: the schedule was paused
};

// start | buffer | skip_overlap | missed | skip_paused.
absl::string_view FireActionName(FireAction action);

struct FireDecision {
  PendingFire pending;  // the fire and its run's idempotency key
  FireAction action;
  bool from_buffer = false;  // a fire that had been waiting, started or dropped now

  friend bool operator==(const FireDecision& a, const FireDecision& b) {
    return a.pending == b.pending && a.action == b.action && a.from_buffer == b.from_buffer;
  }
};

struct FirePlan {
  std::vector<FireDecision> decisions;  // in the order they were taken
  std::vector<std::string> cancel_run_ids;
  std::deque<PendingFire> buffered;  // the buffer after the plan
  absl::Time processed_through;      // the state's, after the plan
  bool more = false;                 // stopped at kMaxDecisionsPerPlan: plan again
  // The actual time of the next fire not yet decided (already past when
  // `more`); nullopt when the spec has no more (its end time passed).
  std::optional<absl::Time> next_due;
};

// The fires whose nominal time is after state.processed_through and whose
// actual time is at or before `now`, in nominal order, after the waiting
// fires get their turn. Paused: each is kSkipPaused and the buffer waits.
// Due longer than policies.catchup_window ago: kMissed. Otherwise the
// overlap policy decides, counting runs this plan starts as running.
FirePlan PlanDueFires(const ScheduleSpec& spec, absl::string_view schedule_id,
                      const SchedulePolicies& policies, const ScheduleState& state, absl::Time now);

// One fire at `now` (key: TriggerIdempotencyKey), under `policy`; works
// while paused too (a person asked for it).
FirePlan PlanTrigger(absl::string_view schedule_id, OverlapPolicy policy,
                     const ScheduleState& state, absl::Time now);

// Every fire whose nominal time is in [start, end), under `policy`, each
// keyed as its scheduled fire would be, so a time that already ran starts
// nothing new. Ignores pause and the catch-up window; leaves
// processed_through alone. INVALID_ARGUMENT if end is not after start, or
// the range holds more than max_count fires (max_count is capped at
// kMaxBackfillFires), naming the count so the user can narrow the range.
absl::StatusOr<FirePlan> PlanBackfill(const ScheduleSpec& spec, absl::string_view schedule_id,
                                      OverlapPolicy policy, const ScheduleState& state,
                                      absl::Time start, absl::Time end,
                                      int max_count = kMaxBackfillFires);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_FIRE_PLAN_H_
