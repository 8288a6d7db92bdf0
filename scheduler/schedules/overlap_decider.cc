#include "scheduler/schedules/overlap_decider.h"

#include <utility>

namespace taskboard::schedules {

OverlapDecider::OverlapDecider(OverlapPolicy policy, const ScheduleState& state)
    : policy_(policy),
      running_(static_cast<int>(state.running_run_ids.size())),
      cancellable_(state.running_run_ids) {
  plan_.buffered = state.buffered;
  plan_.processed_through = state.processed_through;
}

void OverlapDecider::StartBuffered() {
  while (running_ == 0 && !plan_.buffered.empty()) {
    PendingFire next = std::move(plan_.buffered.front());
    plan_.buffered.pop_front();
    Start(std::move(next), /*from_buffer=*/true);
  }
}

void OverlapDecider::Start(PendingFire pending, bool from_buffer) {
  started_here_.push_back(plan_.decisions.size());
  plan_.decisions.push_back({std::move(pending), FireAction::kStart, from_buffer});
  ++running_;
}

void OverlapDecider::Buffer(PendingFire pending) {
  plan_.decisions.push_back({pending, FireAction::kBuffer, false});
  plan_.buffered.push_back(std::move(pending));
}

void OverlapDecider::Record(PendingFire pending, FireAction action) {
  plan_.decisions.push_back({std::move(pending), action, false});
}

void OverlapDecider::Supersede() {
  for (PendingFire& waiting : plan_.buffered) {
    plan_.decisions.push_back({std::move(waiting), FireAction::kSkipOverlap, true});
  }
  plan_.buffered.clear();
  // A run this plan would start only to cancel it at once is not started.
  for (size_t index : started_here_) {
    plan_.decisions[index].action = FireAction::kSkipOverlap;
    --running_;
  }
  started_here_.clear();
  for (std::string& run_id : cancellable_) plan_.cancel_run_ids.push_back(std::move(run_id));
  cancellable_.clear();
}

void OverlapDecider::Offer(PendingFire pending) {
  if (running_ == 0) {
    Start(std::move(pending), false);
    return;
  }
  switch (policy_) {
    case OverlapPolicy::kAllowAll:
      Start(std::move(pending), false);
      return;
    case OverlapPolicy::kSkip:
      Record(std::move(pending), FireAction::kSkipOverlap);
      return;
    case OverlapPolicy::kBufferOne:
      if (plan_.buffered.empty()) {
        Buffer(std::move(pending));
      } else {
        Record(std::move(pending), FireAction::kSkipOverlap);
      }
      return;
    case OverlapPolicy::kBufferAll:
      if (plan_.buffered.size() < static_cast<size_t>(kMaxBufferedFires)) {
        Buffer(std::move(pending));
      } else {
        Record(std::move(pending), FireAction::kSkipOverlap);
      }
      return;
    case OverlapPolicy::kCancelOther:
      Supersede();
      // The cancelled runs count until they have ended; the fire waits.
      if (running_ == 0) {
        Start(std::move(pending), false);
      } else {
        Buffer(std::move(pending));
      }
      return;
  }
}

FirePlan OverlapDecider::Finish() && { return std::move(plan_); }

}  // namespace taskboard::schedules
