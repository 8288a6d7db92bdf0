#include "scheduler/engine/runs/started_runs.h"

#include "absl/strings/str_cat.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

absl::Status NoStartingRun(const std::string& run_id) {
  return absl::InvalidArgumentError(absl::StrCat(
      "started_by.run_id: no run '", run_id,
      "' in your tenant; pass the run id the worker gave the starting task (TASKBOARD_RUN_ID), "
      "or leave started_by out to start a root run"));
}

absl::Status StartingRunEnded(const std::string& run_id, v1::RunStatus status) {
  return absl::FailedPreconditionError(absl::StrCat(
      "started_by: run ", run_id, " has ended ", RunStatusWord(status),
      "; a task starts runs only while it runs: leave started_by out to start a root run"));
}

}  // namespace

absl::StatusOr<RunState*> FindStartingRun(ActiveRuns& active, store::Store& store,
                                          const StartedBy& started_by, const std::string& tenant,
                                          const RunLimits& limits) {
  ActiveRun* found = active.Find(started_by.run_id);
  if (found == nullptr) {
    // Not active: ended, or never there (or another tenant's, which reads
    // the same, as GetRun answers it).
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, started_by.run_id);
    if (absl::IsNotFound(record.status())) return NoStartingRun(started_by.run_id);
    if (!record.ok()) return record.status();
    if (record->tenant() != tenant) return NoStartingRun(started_by.run_id);
    return StartingRunEnded(started_by.run_id, record->run().status());
  }
  RunState& run = *found->state;
  if (run.record().tenant() != tenant) return NoStartingRun(started_by.run_id);
  const v1::Run& view = run.record().run();
  if (IsTerminal(view.status())) return StartingRunEnded(started_by.run_id, view.status());
  const store::TaskRecord* task = run.FindTask(started_by.task_id);
  if (task == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "started_by.task_id: run ", started_by.run_id, " has no task '", started_by.task_id,
        "'; pass the task id the worker gave the starting task (TASKBOARD_TASK_ID)"));
  }
  if (task->task().state() != v1::TASK_STATE_RUNNING) {
    return absl::FailedPreconditionError(absl::StrCat(
        "started_by: task ", started_by.task_id, " of run ", started_by.run_id, " is ",
        TaskStateWord(task->task().state()),
        ", not running; a task starts runs only while it runs: leave started_by out to start "
        "a root run"));
  }
  if (absl::Status room = CheckChildRunRoom(view, limits); !room.ok()) return room;
  return &run;
}

absl::Status CheckChildRunRoom(const v1::Run& parent, const RunLimits& limits) {
  const int started = parent.child_run_ids_size();
  if (started < limits.max_child_runs_per_run) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("run ", parent.run_id(), " has started ", started,
                   " child runs, the scheduler's limit per run (scheduler flag ",
                   limit_flags::kMaxChildRunsPerRun, ")"));
}

absl::Status CheckChildDepth(const v1::Run& parent, const RunLimits& limits) {
  const int depth = parent.depth() + 1;
  if (depth <= limits.max_run_depth) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("run ", parent.run_id(), " is at depth ", parent.depth(), " (its root run ",
                   parent.root_run_id(), " is at 0); a run it starts would be at depth ", depth,
                   ", deeper than the scheduler allows (scheduler flag ", limit_flags::kMaxRunDepth,
                   "=", limits.max_run_depth,
                   "); does the flow start itself? End the recursion in the flow, or raise ",
                   limit_flags::kMaxRunDepth));
}

}  // namespace taskboard::engine
