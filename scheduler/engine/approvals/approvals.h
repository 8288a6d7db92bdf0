#ifndef TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVALS_H_
#define TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVALS_H_

// Approval tasks on the engine's loop (approval_task.h, docs/approvals.md).
// A driver starts an approval task waiting; here the waiting ones are
// listed, a person's decision is applied in a batch like any result (so the
// decision, its task_change event and what it unblocks commit together),
// the ones whose deadline passed are decided by their onTimeout, and every
// approval task the commit writes is shown to the ApprovalWatch, whose
// events go to the notifier (the approval webhook) once the batch is
// written, one call per event, in the order seen.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/engine/approvals/approval_event.h"
#include "scheduler/engine/approvals/approval_limits.h"
#include "scheduler/engine/approvals/approval_metrics.h"
#include "scheduler/engine/approvals/approval_watch.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/run_commit.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

class Approvals : public CommitObserver {
 public:
  struct Options {
    // The loop's view of the store: the approvals of runs that ended.
    store::Store* store = nullptr;
    RunLimits limits;                      // what an edited plan may hold
    ApprovalLimits approval_limits;        // what a decision may carry
    ApprovalMetrics* metrics = nullptr;    // may be null
    ApprovalNotifier* notifier = nullptr;  // may be null: nobody is told
  };
  // Everything outlives this.
  Approvals(Options options, LoopBatch* batch, TimerQueue* timers, ActiveRuns* runs);
  Approvals(const Approvals&) = delete;
  Approvals& operator=(const Approvals&) = delete;

  // The approval tasks waiting in the active runs of `tenant` (nullopt:
  // every tenant), the oldest first.
  std::vector<v1::PendingApproval> List(const std::optional<std::string>& tenant) const;
  // Decides the approval phase `step_id` of `run_id` as `who` (the caller
  // already may see the run); answers with the task. INVALID_ARGUMENT for an
  // answer over the approval limits (approval_limits.h); NOT_FOUND for an
  // unknown run or step, or a step that is no approval; the errors of
  // CheckApprover, CheckEditedPlan (plan_approval.h) and Decide; for a run
  // that ended, the decision it was given or FAILED_PRECONDITION when it
  // ended undecided. Decided on a copy: a refused decision leaves the task
  // untouched.
  absl::StatusOr<v1::Task> Decide(const std::string& run_id, const std::string& step_id,
                                  const ApprovalAnswer& answer, const Approver& who);

  // Arms the deadline of a waiting approval task (a new one, or after a
  // restart); none without a timeout.
  void ArmTimeout(const std::string& run_id, const store::TaskRecord& task);
  // A kApprovalTimeout timer of `run`: decides `task_id` by its onTimeout
  // if it still waits and its deadline has passed.
  void OnTimeout(RunState& run, const std::string& task_id);

  // After recovery: the waiting approvals of the loaded runs count as
  // pending again and are announced once more.
  void Recover();
  // Sets the pending gauges; after every batch.
  void UpdateGauges() { watch_.UpdateGauges(batch_->now_ms()); }

  // CommitObserver.
  void ApprovalTaskCommitted(const ActiveRun& run, const store::TaskRecord& task) override;
  void TaskRemoved(const std::string& run_id, const std::string& task_id) override;
  void RunEnded(const std::string& run_id) override;

  const ApprovalWatch& watch() const { return watch_; }

 private:
  const Options options_;
  LoopBatch* const batch_;
  TimerQueue* const timers_;
  ActiveRuns* const runs_;
  ApprovalWatch watch_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVALS_H_
