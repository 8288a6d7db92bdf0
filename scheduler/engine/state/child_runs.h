#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_CHILD_RUNS_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_CHILD_RUNS_H_

// Nested patterns (docs/semantics.md#nested-runs): a task of one run carried out by a whole
// child run, e.g. a plan-and-execute step whose step executor is a
// supervisor. The parent's driver stays pure: it marks the task as awaiting
// a child (AwaitChildRun, with the child's flow); the engine starts that
// child in the same batch and, when the child ends, settles the task with
// the child's outcome (SettleChildTask), again in the batch the child ends
// in. So a crash never leaves a parent waiting on a child that does not
// exist, nor a finished child whose parent did not hear of it.
//
// The child is its own run (ListRuns, GetRun, WatchRun) with parent_run_id
// and root_run_id set; the root run and its descendants are one request, so
// they share the request's ledger and tool cache.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

// The flow of the child run that carries out plan step `step_id` of the
// plan-and-execute `parent` with a supervisor step executor: the nested
// supervisor block with `goal` as its goal, and the parent's flow policy
// (its default for plan-and-execute when unset), tool cache rules, attempts
// and timeouts.
v1::FlowSpec NestedSupervisorFlow(const v1::FlowSpec& parent, absl::string_view step_id,
                                  std::string goal);

// The flow of the child run that carries out task `task_id` of the pattern
// phase `phase` (flow/phase_pattern.h) of the taskflow `parent`: the phase's
// pattern with `goal` (the task's interpolated text) as its goal, and the
// parent's flow policy, tool cache rules, attempts and timeouts.
v1::FlowSpec PhasePatternFlow(const v1::FlowSpec& parent, const v1::Phase& phase,
                              absl::string_view task_id, std::string goal);

// The flow of the child run that carries out plan step `step_id` with the
// saved flow the plan names as its step executor (resolved at submit): that
// flow, with the step's goal bound to its arg `goal` by the engine.
v1::FlowSpec SavedStepFlow(const v1::FlowSpec& parent, absl::string_view step_id);

// The args of the child run that carries out `task`: a pattern child shares
// its parent's `parent_args`; a saved flow (it declares args) gets those of
// its args the parent has, with `goal` the task's goal. INVALID_ARGUMENT
// when they do not bind (a required arg the parent does not have).
absl::StatusOr<Json> ChildRunArgs(const store::TaskRecord& task, const Json& parent_args);

// Marks `task` RUNNING on behalf of a child run with `child_flow`; the
// engine starts the child (StartsChildRun is then true) and fills in
// task.child_run_id.
void AwaitChildRun(store::TaskRecord& task, v1::FlowSpec child_flow, int64_t now_ms);

// True while `task` waits for the engine to start its child run.
bool StartsChildRun(const store::TaskRecord& task);

// True while `task` is being carried out by a child run (no worker holds it:
// it has no lease and no dispatch timeout).
bool AwaitsChildRun(const store::TaskRecord& task);

// Ends `task` with the outcome of its finished child run: completed with the
// child's output, or failed naming the child and its error. A task carried
// out by a child run is not retried as a whole: the child's own tasks have
// already used their attempts. Adds the child's usage to the task.
void SettleChildTask(store::TaskRecord& task, const v1::Run& child, int64_t now_ms);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_CHILD_RUNS_H_
