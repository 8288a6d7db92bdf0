#ifndef TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_DECIDER_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_DECIDER_H_

// Applies an overlap policy (overlap_policy.h) to fires one after another,
// for one plan (fire_plan.h): it counts the runs the plan itself starts as
// running, so three fires due at once under `skip` start one run, not three.

#include <string>
#include <vector>

#include "scheduler/schedules/fire_plan.h"
#include "scheduler/schedules/overlap_policy.h"
#include "scheduler/schedules/schedule_state.h"

namespace taskboard::schedules {

class OverlapDecider {
 public:
  OverlapDecider(OverlapPolicy policy, const ScheduleState& state);

  // Starts the oldest waiting fire if nothing is running.
  void StartBuffered();
  // A fire that is due: started, buffered or skipped by the policy.
  void Offer(PendingFire pending);
  // A fire decided without the policy (missed, paused).
  void Record(PendingFire pending, FireAction action);

  int decision_count() const { return static_cast<int>(plan_.decisions.size()); }
  // The decisions, the runs to cancel and the buffer; processed_through,
  // more and next_due are the caller's to fill.
  FirePlan Finish() &&;

 private:
  void Start(PendingFire pending, bool from_buffer);
  void Buffer(PendingFire pending);
  // cancel_other: older fires give way to the newest.
  void Supersede();

  OverlapPolicy policy_;
  int running_;
  std::vector<std::string> cancellable_;  // the state's running runs, not yet cancelled
  std::vector<size_t> started_here_;      // indices of this plan's kStart decisions
  FirePlan plan_;
};

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_DECIDER_H_
