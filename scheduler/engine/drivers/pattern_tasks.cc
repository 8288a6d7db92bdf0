#include "scheduler/engine/drivers/pattern_tasks.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/interpolation.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::engine {

std::string PatternGoal(const RunState& run, absl::string_view goal_template) {
  const Json args = flow::ProtoStructToJson(run.record().run().args());
  flow::InterpolationContext ctx;
  ctx.args = &args;
  absl::StatusOr<std::string> goal = flow::Interpolate(goal_template, ctx);
  return goal.ok() ? *std::move(goal) : std::string(goal_template);
}

store::TaskRecord NewPatternTask(RunState& run, std::string id, std::string role, std::string agent,
                                 std::string prompt, const PatternTaskOptions& options,
                                 int64_t now_ms) {
  store::TaskRecord record;
  v1::Task& task = *record.mutable_task();
  task.set_task_id(id);
  task.set_run_id(run.run_id());
  task.set_role(role);
  task.set_agent(agent);
  task.set_state(v1::TASK_STATE_PENDING);
  *task.mutable_created_at() = ToTimestamp(now_ms);
  v1::Assignment& assignment = *record.mutable_assignment();
  assignment.set_task_id(std::move(id));
  assignment.set_run_id(run.run_id());
  assignment.set_root_run_id(run.record().run().root_run_id());
  assignment.set_agent(std::move(agent));
  assignment.set_prompt(std::move(prompt));
  assignment.set_role(std::move(role));
  assignment.set_timeout_seconds(options.timeout_seconds);
  *assignment.mutable_args() = run.record().run().args();
  record.set_max_attempts(options.max_attempts);
  store::RunRecord& run_record = run.MutableRecord();
  record.set_order(run_record.next_task_order());
  run_record.set_next_task_order(run_record.next_task_order() + 1);
  return record;
}

bool FailAndMaybeRetry(store::TaskRecord& task, std::string error, int64_t now_ms) {
  if (FailAttempt(task, std::move(error), now_ms, 0) == AttemptOutcome::kRetrying) {
    MarkReady(task, now_ms);
    return false;
  }
  return true;
}

absl::Status CheckPlanSize(size_t tasks, const RunLimits& limits) {
  if (tasks <= static_cast<size_t>(std::max(0, limits.max_plan_tasks))) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      tasks, " planned tasks are over the scheduler's limit of ", limits.max_plan_tasks,
      " per plan (scheduler flag ", limit_flags::kMaxPlanTasks, "); plan fewer, larger tasks"));
}

std::optional<std::vector<flow::PlannedTask>> TakePlan(RunState& run, const std::string& planner_id,
                                                       const RunLimits& limits, int64_t now_ms) {
  const store::TaskRecord* planner = run.FindTask(planner_id);
  if (planner == nullptr) return std::nullopt;
  if (planner->task().state() == v1::TASK_STATE_COMPLETED) {
    absl::StatusOr<std::vector<flow::PlannedTask>> plan = flow::ParsePlan(planner->task().output());
    if (plan.ok()) {
      if (absl::Status size = CheckPlanSize(plan->size(), limits); !size.ok()) plan = size;
    }
    if (plan.ok()) return *std::move(plan);
    FailAndMaybeRetry(run.MutableTask(planner_id),
                      absl::StrCat("the plan is invalid: ", plan.status().message()), now_ms);
  }
  if (planner->task().state() == v1::TASK_STATE_FAILED) FailPatternRun(run, *planner, "", now_ms);
  return std::nullopt;
}

void FailPatternRun(RunState& run, const store::TaskRecord& task, std::string output,
                    int64_t now_ms) {
  // A person's task is named: a run may wait on several (human reviews).
  const std::string what = task.task().role() == "approval"
                               ? absl::StrCat("approval '", task.task().task_id(), "'")
                               : task.task().role();
  FinishRun(run, v1::RUN_STATUS_FAILED, std::move(output),
            absl::StrCat(what, " failed: ", task.task().error(),
                         " (taskboard resume runs it again and keeps the completed work)"),
            now_ms);
}

void SetPatternPhase(RunState& run, const std::string& phase, int iteration, std::string detail) {
  run.MutableRecord().set_pattern_phase(phase);
  v1::RunEvent event;
  v1::BoardMeta& meta = *event.mutable_board_meta();
  meta.set_phase(phase);
  meta.set_iteration(iteration);
  meta.set_detail(std::move(detail));
  run.Emit(std::move(event));
}

}  // namespace taskboard::engine
