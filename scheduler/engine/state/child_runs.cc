#include "scheduler/engine/state/child_runs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_pattern.h"
#include "scheduler/flow/run_args.h"
#include "scheduler/policy/effective_policy.h"

namespace taskboard::engine {

namespace {

// What every child inherits from its parent: one flow policy for the whole
// request (the child selects prior work the way the parent's author chose,
// not by its own kind's default), the tool cache rules, attempts and
// timeouts.
v1::FlowSpec ChildOf(const v1::FlowSpec& parent, absl::string_view task_id) {
  v1::FlowSpec child;
  child.set_name(absl::StrCat(parent.name(), "/", task_id));
  child.set_description(absl::StrCat("task '", task_id, "' of ", parent.name()));
  *child.mutable_flow_policy() =
      policy::EffectivePolicy(parent.flow_policy(), flow::RunKindOf(parent));
  if (parent.has_tool_cache()) *child.mutable_tool_cache() = parent.tool_cache();
  child.set_max_attempts_per_task(parent.max_attempts_per_task());
  child.set_timeout_seconds(parent.timeout_seconds());
  return child;
}

}  // namespace

v1::FlowSpec NestedSupervisorFlow(const v1::FlowSpec& parent, absl::string_view step_id,
                                  std::string goal) {
  v1::FlowSpec child = ChildOf(parent, step_id);
  child.set_description(absl::StrCat("step '", step_id, "' of ", parent.name()));
  v1::SupervisorSpec& supervisor = *child.mutable_supervisor();
  supervisor = parent.plan_and_execute().step_executor();
  supervisor.set_goal(std::move(goal));
  return child;
}

v1::FlowSpec PhasePatternFlow(const v1::FlowSpec& parent, const v1::Phase& phase,
                              absl::string_view task_id, std::string goal) {
  v1::FlowSpec child = ChildOf(parent, task_id);
  if (phase.has_plan()) {
    *child.mutable_plan_and_execute() = flow::PhasePlan(phase);
    child.mutable_plan_and_execute()->set_goal(std::move(goal));
  } else {
    *child.mutable_supervisor() = flow::PhaseSupervise(phase);
    child.mutable_supervisor()->set_goal(std::move(goal));
  }
  return child;
}

v1::FlowSpec SavedStepFlow(const v1::FlowSpec& parent, absl::string_view step_id) {
  v1::FlowSpec child = parent.plan_and_execute().step_flow_spec();
  child.set_description(
      absl::StrCat("step '", step_id, "' of ", parent.name(), ": ", child.description()));
  return child;
}

absl::StatusOr<Json> ChildRunArgs(const store::TaskRecord& task, const Json& parent_args) {
  const v1::FlowSpec& child = task.child_spec();
  if (child.args().empty()) return parent_args;
  Json args = Json::object();
  for (const v1::ArgSpec& arg : child.args()) {
    if (arg.name() == "goal") {
      args["goal"] = task.task().title();
    } else if (parent_args.is_object() && parent_args.contains(arg.name())) {
      args[arg.name()] = parent_args[arg.name()];
    }
  }
  return flow::BindRunArgs(child, args);
}

void AwaitChildRun(store::TaskRecord& task, v1::FlowSpec child_flow, int64_t now_ms) {
  *task.mutable_child_spec() = std::move(child_flow);
  task.mutable_task()->set_attempt(1);
  task.set_ready_unix_ms(now_ms);
  MarkRunning(task, now_ms);
}

bool StartsChildRun(const store::TaskRecord& task) {
  return task.has_child_spec() && task.task().child_run_id().empty() &&
         task.task().state() == v1::TASK_STATE_RUNNING;
}

bool AwaitsChildRun(const store::TaskRecord& task) {
  return task.has_child_spec() && task.task().state() == v1::TASK_STATE_RUNNING;
}

void SettleChildTask(store::TaskRecord& task, const v1::Run& child, int64_t now_ms) {
  v1::Task& view = *task.mutable_task();
  *view.mutable_usage() = child.usage();
  if (child.status() == v1::RUN_STATUS_COMPLETED) {
    v1::TaskResult result;
    result.set_success(true);
    result.set_output(child.output());
    *result.mutable_usage() = child.usage();
    ApplyResult(task, result, now_ms, 0);
    return;
  }
  FailTask(task,
           absl::StrCat("child run ", child.run_id(), " ended ", RunStatusWord(child.status()),
                        child.error().empty() ? "" : absl::StrCat(": ", child.error())),
           now_ms);
}

}  // namespace taskboard::engine
