#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_DEADLINE_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_DEADLINE_H_

// A run's deadline (docs/semantics.md#run-deadlines): which of the flow's
// runTimeoutSeconds and the caller's (SubmitRun, or the schedule that fired)
// is in force, when it passes, and what the run says once it has.
//
// The deadline lives in the run's public view (v1::Run.deadline) as an
// absolute time, so it is stored with the run and a restarted or failed-over
// scheduler arms the same instant again (run_manager.h).

#include <cstdint>
#include <optional>
#include <string>

#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// The deadline a new run gets, without its time (see StartRunDeadline):
// the smaller of the flow's run_timeout_seconds and `caller_seconds` (from
// `caller_source`), the flow's on a tie; nullopt when neither is above 0.
// A caller may shorten the flow's bound but not lift it (decision 190).
std::optional<v1::RunDeadline> ChooseRunDeadline(const v1::FlowSpec& spec, int32_t caller_seconds,
                                                 v1::RunDeadlineSource caller_source);

// Sets deadline_at to `start_ms` plus the timeout: at submit, and again at
// every ResumeRun (a resumed run gets the whole timeout anew).
void StartRunDeadline(v1::RunDeadline& deadline, int64_t start_ms);

// The deadline's instant in Unix ms; 0 for a run without one.
int64_t RunDeadlineMs(const v1::Run& run);

// "flow" | "submit" | "schedule".
std::string RunDeadlineSourceWord(v1::RunDeadlineSource source);

// What a timed-out run says: "run deadline 30s (flow) passed".
std::string RunDeadlinePassed(const v1::RunDeadline& deadline);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_DEADLINE_H_
