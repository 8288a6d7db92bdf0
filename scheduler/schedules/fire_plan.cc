#include "scheduler/schedules/fire_plan.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/schedules/overlap_decider.h"

namespace taskboard::schedules {

absl::string_view FireActionName(FireAction action) {
  switch (action) {
    case FireAction::kStart:
      return "start";
    case FireAction::kBuffer:
      return "buffer";
    case FireAction::kSkipOverlap:
      return "skip_overlap";
    case FireAction::kMissed:
      return "missed";
    case FireAction::kSkipPaused:
      return "skip_paused";
  }
  return "";
}

FirePlan PlanDueFires(const ScheduleSpec& spec, absl::string_view schedule_id,
                      const SchedulePolicies& policies, const ScheduleState& state,
                      absl::Time now) {
  OverlapDecider decider(policies.overlap, state);
  if (!state.paused) decider.StartBuffered();
  absl::Time through = state.processed_through;
  bool more = false;
  std::optional<absl::Time> next_due;
  while (std::optional<absl::Time> nominal = NextNominalTime(spec, through)) {
    const FireTime fire = FireAt(spec, schedule_id, *nominal);
    next_due = fire.actual;
    if (fire.actual > now) break;
    if (decider.decision_count() >= kMaxDecisionsPerPlan) {
      more = true;
      break;
    }
    PendingFire pending{fire, FireIdempotencyKey(schedule_id, fire.nominal)};
    if (state.paused) {
      decider.Record(std::move(pending), FireAction::kSkipPaused);
    } else if (now - fire.actual > policies.catchup_window) {
      decider.Record(std::move(pending), FireAction::kMissed);
    } else {
      decider.Offer(std::move(pending));
    }
    through = fire.nominal;
    next_due.reset();
  }
  FirePlan plan = std::move(decider).Finish();
  plan.processed_through = through;
  plan.more = more;
  plan.next_due = next_due;
  return plan;
}

FirePlan PlanTrigger(absl::string_view schedule_id, OverlapPolicy policy,
                     const ScheduleState& state, absl::Time now) {
  OverlapDecider decider(policy, state);
  if (!state.paused) decider.StartBuffered();
  decider.Offer({FireTime{now, now}, TriggerIdempotencyKey(schedule_id, now)});
  return std::move(decider).Finish();
}

absl::StatusOr<FirePlan> PlanBackfill(const ScheduleSpec& spec, absl::string_view schedule_id,
                                      OverlapPolicy policy, const ScheduleState& state,
                                      absl::Time start, absl::Time end, int max_count) {
  if (end <= start) {
    return absl::InvalidArgumentError(absl::StrCat("backfill range ", FormatFireTime(start), " to ",
                                                   FormatFireTime(end),
                                                   " is empty: the end must be after the start"));
  }
  max_count = std::min(max_count, kMaxBackfillFires);
  std::vector<absl::Time> nominals;
  // Nominal times in [start, end): search from just before the start.
  absl::Time through = start - absl::Nanoseconds(1);
  while (std::optional<absl::Time> nominal = NextNominalTime(spec, through)) {
    if (*nominal >= end) break;
    if (static_cast<int>(nominals.size()) == max_count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "backfill from ", FormatFireTime(start), " to ", FormatFireTime(end), " holds more than ",
          max_count, " fire times; backfill a shorter range, in parts"));
    }
    nominals.push_back(*nominal);
    through = *nominal;
  }
  OverlapDecider decider(policy, state);
  if (!state.paused) decider.StartBuffered();
  for (absl::Time nominal : nominals) {
    decider.Offer({FireAt(spec, schedule_id, nominal), FireIdempotencyKey(schedule_id, nominal)});
  }
  return std::move(decider).Finish();
}

}  // namespace taskboard::schedules
