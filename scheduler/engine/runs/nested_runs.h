#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_NESTED_RUNS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_NESTED_RUNS_H_

// Nested runs (child_runs.h). A driver marks a task as carried out by a
// child run; here the child is started, the task is settled when the child
// ends, and the children of a run that ended are cancelled, each in the
// batch where the cause happened, so parent and child never disagree in the
// store.
//
// Loop thread only.

#include <string>

#include "absl/status/status.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/lease_revoker.h"
#include "scheduler/engine/state/run_state.h"

namespace taskboard::engine {

class RunManager;

class NestedRuns {
 public:
  // Everything outlives this (the RunManager owns it).
  NestedRuns(RunManager* runs, LoopBatch* batch, LeaseRevoker* revoker)
      : runs_(runs), batch_(batch), revoker_(revoker) {}

  // After the drivers advanced: starts the child runs they asked for,
  // settles the tasks of children that ended, and cancels the children (and
  // open tasks) of runs that ended, until nothing more changes, all in the
  // current batch.
  void Advance();
  // After recovery: tasks whose child run must still start, or whose child
  // ended, are marked so the first batch handles them.
  absl::Status RecoverLinks();

 private:
  // Starts the child run that carries out `task_id` of `parent`; returns its
  // id, or "" when it could not start (the task then fails).
  std::string StartChildRun(RunState& parent, const std::string& task_id);
  // A resumed parent's task whose child run did not complete: resumes that
  // child under its own id, so its completed work is kept (a child that
  // cannot be resumed is replaced by a new one). Returns the child's id, or
  // "" when none runs (the task then fails).
  std::string ResumeChildRun(RunState& parent, const std::string& task_id);
  // Settles the parent's task of the ended child `child`; false when the
  // parent is not active or the task was already settled.
  bool SettleParentTask(const RunState& child);

  RunManager* const runs_;
  LoopBatch* const batch_;
  LeaseRevoker* const revoker_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_NESTED_RUNS_H_
