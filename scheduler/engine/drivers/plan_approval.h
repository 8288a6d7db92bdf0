#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_APPROVAL_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_APPROVAL_H_

// Plan approvals (`approvePlan`, docs/approvals.md): after each planning
// (and replanning) a plan-and-execute run asks a person about the plan with
// an approval task `approve-plan-N` (N: 1 for the first plan, then the
// iteration the replan starts). The task carries the plan it asks about in
// its assignment's input JSON, so the decision can be acted on after a
// restart:
//
//   {"plan_approval": {"replan": R}, "tasks": [{id, goal, deps, priority}]}
//
// R is 0 for the first plan, else the replan's number (the tasks are then
// the ones the replan adds, already renamed as they will join the plan). A
// person approves it, rejects it (the run ends blocked), or approves an
// edited plan, which is checked here exactly as the planner's (or
// replanner's) output is.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/engine/drivers/pattern_tasks.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/flow/plan_output.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

std::string PlanApprovalId(int planning);
bool IsPlanApproval(const store::TaskRecord& task);

struct PlanApprovalRequest {
  const v1::Approval* spec = nullptr;
  int planning = 1;  // the N of approve-plan-N
  int replan = 0;    // 0: the first plan
  std::string goal;  // the run's goal, for the prompt
  PatternTaskOptions options;
};

// Adds the waiting approval task for `plan` to `run` and returns its id.
std::string AskPlanApproval(RunState& run, const PlanApprovalRequest& request,
                            const std::vector<flow::PlannedTask>& plan, int64_t now_ms);

// What the person sees: `goal`'s plan as numbered steps (goal, deps), then
// the plan JSON to edit.
std::string PlanApprovalPrompt(const std::string& goal, const std::vector<flow::PlannedTask>& plan,
                               bool replan);

// DecideApproval's check of an edited plan for the waiting `approval` of
// `run`. INVALID_ARGUMENT when `approval` is not a plan approval, or the plan
// is invalid as the planner's output would be (flow::ParsePlan, or
// ParseReplan and PrepareAddedSteps for a replan; --max-plan-tasks).
absl::Status CheckEditedPlan(const RunState& run, const store::TaskRecord& approval,
                             const std::string& edited_plan, const RunLimits& limits);

// The plan to run once `approval` approved: the edited one when the person
// gave one, else the one asked about. Errors as CheckEditedPlan.
absl::StatusOr<std::vector<flow::PlannedTask>> ApprovedPlan(const RunState& run,
                                                            const store::TaskRecord& approval,
                                                            const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_APPROVAL_H_
