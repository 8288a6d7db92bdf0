#include "scheduler/engine/schedules/schedule_record.h"

#include <utility>

namespace taskboard::engine {

store::ScheduleFireRecord FireRecordOf(const schedules::PendingFire& pending) {
  store::ScheduleFireRecord record;
  record.set_nominal_unix_us(absl::ToUnixMicros(pending.fire.nominal));
  record.set_actual_unix_us(absl::ToUnixMicros(pending.fire.actual));
  record.set_idempotency_key(pending.idempotency_key);
  return record;
}

schedules::PendingFire PendingFireOf(const store::ScheduleFireRecord& record) {
  return {{absl::FromUnixMicros(record.nominal_unix_us()),
           absl::FromUnixMicros(record.actual_unix_us())},
          record.idempotency_key()};
}

schedules::ScheduleState StateOf(const store::ScheduleRecord& record) {
  schedules::ScheduleState state;
  state.running_run_ids.assign(record.running_run_ids().begin(), record.running_run_ids().end());
  for (const store::ScheduleFireRecord& fire : record.buffered()) {
    state.buffered.push_back(PendingFireOf(fire));
  }
  if (record.has_processed_through_unix_us()) {
    state.processed_through = absl::FromUnixMicros(record.processed_through_unix_us());
  }
  state.paused = record.paused();
  state.note = record.note();
  return state;
}

void SetState(const schedules::ScheduleState& state, store::ScheduleRecord* record) {
  record->clear_running_run_ids();
  for (const std::string& run_id : state.running_run_ids) record->add_running_run_ids(run_id);
  record->clear_buffered();
  for (const schedules::PendingFire& fire : state.buffered) {
    *record->add_buffered() = FireRecordOf(fire);
  }
  if (state.processed_through == absl::InfinitePast()) {
    record->clear_processed_through_unix_us();
  } else {
    record->set_processed_through_unix_us(absl::ToUnixMicros(state.processed_through));
  }
  record->set_paused(state.paused);
  record->set_note(state.note);
}

void AddRecentAction(store::ScheduleActionRecord action, store::ScheduleRecord* record) {
  auto* actions = record->mutable_recent_actions();
  *actions->Add() = std::move(action);
  if (actions->size() > kRecentScheduleActions) {
    actions->DeleteSubrange(0, actions->size() - kRecentScheduleActions);
  }
}

}  // namespace taskboard::engine
