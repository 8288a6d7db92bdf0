#ifndef TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RECORD_H_
#define TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RECORD_H_

// The planner's state (schedules/schedule_state.h) in and out of the stored
// ScheduleRecord, and the record's bounded list of recent actions. Times are
// kept in Unix microseconds: fire times may carry jitter below a second.

#include "absl/time/time.h"
#include "scheduler/schedules/schedule_state.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

// Actions a record keeps (DescribeSchedule shows them), the newest last.
inline constexpr int kRecentScheduleActions = 20;

schedules::ScheduleState StateOf(const store::ScheduleRecord& record);
// Writes `state` into `record`, leaving its definition and history alone.
void SetState(const schedules::ScheduleState& state, store::ScheduleRecord* record);

store::ScheduleFireRecord FireRecordOf(const schedules::PendingFire& pending);
schedules::PendingFire PendingFireOf(const store::ScheduleFireRecord& record);

// Appends `action`, dropping the oldest past kRecentScheduleActions.
void AddRecentAction(store::ScheduleActionRecord action, store::ScheduleRecord* record);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RECORD_H_
