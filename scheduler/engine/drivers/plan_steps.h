#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_STEPS_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_STEPS_H_

// The steps a plan-and-execute run takes from a plan (docs/semantics.md#plan-and-execute): the
// ids they may not use, and the checks a replan's new tasks pass before they
// join the plan. Shared by the driver and by DecideApproval, which checks a
// person's edited plan exactly as the driver will take it
// (plan_approval.h).

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/flow/plan_output.h"

namespace taskboard::engine {

// Ids the driver's own tasks use (planner, synthesizer, evaluator-N,
// replanner-N, approve-plan-N); a step may not take them.
bool IsReservedStepId(absl::string_view id);

// A step named like one of the driver's own tasks gets a `-step` suffix (and
// so do deps on it).
void RenameReservedSteps(std::vector<flow::PlannedTask>& steps);

// The tasks a replan (number `replan_number`) adds to `run`'s plan, renamed
// where their ids exist (flow::RenameReplannedTasks). INVALID_ARGUMENT naming
// --max-plan-tasks when there are too many, a dep that is not in the plan, or
// a dependency cycle among the new tasks.
absl::StatusOr<std::vector<flow::PlannedTask>> PrepareAddedSteps(
    const RunState& run, std::vector<flow::PlannedTask> tasks, int replan_number,
    const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_STEPS_H_
