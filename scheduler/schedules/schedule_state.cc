#include "scheduler/schedules/schedule_state.h"

#include <utility>

namespace taskboard::schedules {

ScheduleState NewScheduleState(absl::Time now) {
  ScheduleState state;
  state.processed_through = now;
  return state;
}

void Pause(ScheduleState* state, std::string note) {
  state->paused = true;
  state->note = std::move(note);
}

void Unpause(ScheduleState* state, std::string note) {
  state->paused = false;
  state->note = std::move(note);
}

}  // namespace taskboard::schedules
