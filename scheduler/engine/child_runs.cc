#include "scheduler/engine/child_runs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/task_lifecycle.h"
#include "scheduler/engine/task_states.h"
#include "scheduler/policy/effective_policy.h"

namespace taskboard::engine {

v1::FlowSpec NestedSupervisorFlow(const v1::FlowSpec& parent, absl::string_view step_id,
                                  std::string goal) {
  v1::FlowSpec child;
  child.set_name(absl::StrCat(parent.name(), "/", step_id));
  child.set_description(absl::StrCat("step '", step_id, "' of ", parent.name()));
  // One flow policy for the whole request: the child selects prior work the
  // way the flow's author chose for the plan (or the plan's default), not
  // the supervisor kind's default.
  *child.mutable_flow_policy() =
      policy::EffectivePolicy(parent.flow_policy(), v1::FLOW_KIND_PLAN_AND_EXECUTE);
  if (parent.has_tool_cache()) *child.mutable_tool_cache() = parent.tool_cache();
  child.set_max_attempts_per_task(parent.max_attempts_per_task());
  child.set_timeout_seconds(parent.timeout_seconds());
  v1::SupervisorSpec& supervisor = *child.mutable_supervisor();
  supervisor = parent.plan_and_execute().step_executor();
  supervisor.set_goal(std::move(goal));
  return child;
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
