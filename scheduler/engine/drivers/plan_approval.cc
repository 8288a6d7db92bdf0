#include "scheduler/engine/drivers/plan_approval.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "scheduler/engine/drivers/plan_steps.h"
#include "scheduler/engine/state/approval_task.h"

namespace taskboard::engine {
namespace {

Json PlanToJson(const std::vector<flow::PlannedTask>& plan) {
  Json tasks = Json::array();
  for (const flow::PlannedTask& task : plan) {
    tasks.push_back(
        {{"id", task.id}, {"goal", task.goal}, {"deps", task.deps}, {"priority", task.priority}});
  }
  return Json{{"tasks", std::move(tasks)}};
}

// The replan number the approval asks about (0: the first plan), or -1 when
// it is not a plan approval.
int ReplanOf(const store::TaskRecord& task) {
  if (!IsApprovalTask(task)) return -1;
  absl::StatusOr<Json> input = ParseJson(task.assignment().input_json());
  if (!input.ok() || !input->is_object() || !input->contains("plan_approval")) return -1;
  const Json& marker = (*input)["plan_approval"];
  return marker.is_object() ? marker.value("replan", 0) : 0;
}

// The edited plan as the driver will take it.
absl::StatusOr<std::vector<flow::PlannedTask>> ParseEdited(const RunState& run, int replan,
                                                           const std::string& text,
                                                           const RunLimits& limits) {
  if (replan == 0) {
    absl::StatusOr<std::vector<flow::PlannedTask>> plan = flow::ParsePlan(text);
    if (!plan.ok()) return plan.status();
    if (absl::Status size = CheckPlanSize(plan->size(), limits); !size.ok()) return size;
    RenameReservedSteps(*plan);
    return plan;
  }
  absl::StatusOr<std::vector<flow::PlannedTask>> tasks = flow::ParseReplan(text);
  if (!tasks.ok()) return tasks.status();
  return PrepareAddedSteps(run, *std::move(tasks), replan, limits);
}

}  // namespace

std::string PlanApprovalId(int planning) { return absl::StrCat("approve-plan-", planning); }

bool IsPlanApproval(const store::TaskRecord& task) { return ReplanOf(task) >= 0; }

std::string PlanApprovalPrompt(const std::string& goal, const std::vector<flow::PlannedTask>& plan,
                               bool replan) {
  std::string prompt =
      absl::StrCat(replan ? "Approve the steps a replan adds (" : "Approve the plan (", plan.size(),
                   plan.size() == 1 ? " step" : " steps", ") for: ", goal, "\n");
  int number = 0;
  for (const flow::PlannedTask& task : plan) {
    absl::StrAppend(&prompt, "\n", ++number, ". ", task.id, ": ", task.goal);
    if (!task.deps.empty())
      absl::StrAppend(&prompt, " (after ", absl::StrJoin(task.deps, ", "), ")");
  }
  absl::StrAppend(&prompt,
                  "\n\nApprove to run it, reject to stop the run, or approve an edited copy of "
                  "this JSON (taskboard approve RUN STEP --plan FILE):\n",
                  PlanToJson(plan).dump(2));
  return prompt;
}

std::string AskPlanApproval(RunState& run, const PlanApprovalRequest& request,
                            const std::vector<flow::PlannedTask>& plan, int64_t now_ms) {
  const std::string id = PlanApprovalId(request.planning);
  store::TaskRecord task = NewPatternTask(run, id, kApprovalRole, "", "", request.options, now_ms);
  task.mutable_task()->set_title(request.replan == 0 ? "approve the plan"
                                                     : "approve the replanned steps");
  Json input = PlanToJson(plan);
  input["plan_approval"] = Json{{"replan", request.replan}};
  task.mutable_assignment()->set_input_json(DumpJson(input));
  DescribeApproval(task, *request.spec, {},
                   PlanApprovalPrompt(request.goal, plan, request.replan > 0));
  StartWaiting(task, request.spec->timeout_seconds(), now_ms);
  run.PutTask(std::move(task));
  return id;
}

absl::Status CheckEditedPlan(const RunState& run, const store::TaskRecord& approval,
                             const std::string& edited_plan, const RunLimits& limits) {
  const int replan = ReplanOf(approval);
  if (replan < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("approval '", approval.task().task_id(),
                     "' does not ask about a plan, so it takes no edited plan; leave --plan out"));
  }
  absl::StatusOr<std::vector<flow::PlannedTask>> plan =
      ParseEdited(run, replan, edited_plan, limits);
  if (!plan.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the edited plan is invalid: ", plan.status().message(),
                     "; fix it and approve again (the approval is still waiting)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<flow::PlannedTask>> ApprovedPlan(const RunState& run,
                                                            const store::TaskRecord& approval,
                                                            const RunLimits& limits) {
  const int replan = ReplanOf(approval);
  const std::string& edited = approval.task().approval().decision().edited_plan();
  if (!edited.empty()) return ParseEdited(run, replan, edited, limits);
  absl::StatusOr<Json> input = ParseJson(approval.assignment().input_json());
  if (!input.ok()) return input.status();
  // Stored as the driver prepared it: read back without renaming again.
  absl::StatusOr<std::vector<flow::PlannedTask>> plan =
      replan == 0 ? flow::ParsePlan(DumpJson(*input)) : flow::ParseReplan(DumpJson(*input));
  return plan;
}

}  // namespace taskboard::engine
