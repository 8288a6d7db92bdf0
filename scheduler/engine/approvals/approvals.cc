#include "scheduler/engine/approvals/approvals.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/drivers/plan_approval.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

Approvals::Approvals(Options options, LoopBatch* batch, TimerQueue* timers, ActiveRuns* runs)
    : options_(std::move(options)),
      batch_(batch),
      timers_(timers),
      runs_(runs),
      watch_(options_.metrics) {}

std::vector<v1::PendingApproval> Approvals::List(const std::optional<std::string>& tenant) const {
  std::vector<v1::PendingApproval> pending;
  for (const auto& [run_id, active] : *runs_) {
    const RunState& run = *active.state;
    if (tenant.has_value() && run.record().tenant() != *tenant) continue;
    if (IsTerminal(run.record().run().status())) continue;
    // An approval task's id is its phase's id, so only phase tasks can be.
    const RunState::TaskList tasks = run.tasks();
    for (auto it = tasks.begin(); it != tasks.end(); ++it) {
      // A waiting approval is running, so never kept serialized: the
      // tasks that wait for workers are not parsed to be looked at.
      if (it.state() != v1::TASK_STATE_RUNNING) continue;
      const auto& [task_id, task] = *it;
      if (!WaitsForApproval(task)) continue;
      v1::PendingApproval& row = pending.emplace_back();
      row.set_run_id(run_id);
      row.set_step_id(task_id);
      row.set_flow_name(run.record().run().flow_name());
      *row.mutable_approval() = task.task().approval();
    }
  }
  std::sort(pending.begin(), pending.end(),
            [](const v1::PendingApproval& a, const v1::PendingApproval& b) {
              const int64_t since_a = ToUnixMs(a.approval().waiting_since());
              const int64_t since_b = ToUnixMs(b.approval().waiting_since());
              if (since_a != since_b) return since_a < since_b;
              return std::tie(a.run_id(), a.step_id()) < std::tie(b.run_id(), b.step_id());
            });
  return pending;
}

absl::StatusOr<v1::Task> Approvals::Decide(const std::string& run_id, const std::string& step_id,
                                           const ApprovalAnswer& answer, const Approver& who) {
  // First: an oversized answer is refused before any record is touched.
  if (absl::Status sized = CheckApprovalAnswer(answer, options_.approval_limits); !sized.ok()) {
    return sized;
  }
  ActiveRun* active = runs_->Find(run_id);
  if (active == nullptr) {
    // A finished run: say who decided, if someone did, else that it ended.
    absl::StatusOr<v1::GetTaskResponse> stored = ReadTask(*options_.store, run_id, step_id);
    if (!stored.ok()) return stored.status();
    store::TaskRecord record;
    *record.mutable_task() = stored->task();
    if (!IsApprovalTask(record)) {
      return absl::NotFoundError(absl::StrCat("step '", step_id, "' of run '", run_id,
                                              "' is not an approval; list them with "
                                              "`taskboard approvals`"));
    }
    if (record.task().approval().has_decision())
      return engine::Decide(record, answer, who.name, batch_->now_ms());
    return absl::FailedPreconditionError(
        absl::StrCat("run '", run_id, "' has ended; its approval '", step_id,
                     "' can no longer be decided (resume the run to ask again)"));
  }
  RunState& run = *active->state;
  const store::TaskRecord* task = run.FindTask(step_id);
  if (task == nullptr || !IsApprovalTask(*task)) {
    return absl::NotFoundError(absl::StrCat(
        "run '", run_id, "' has no approval step '", step_id,
        task == nullptr ? "' waiting (it may not have started yet)" : "' (it is not an approval)",
        "; list the pending ones with `taskboard approvals`"));
  }
  if (absl::Status allowed = CheckApprover(*task, who); !allowed.ok()) return allowed;
  if (!answer.edited_plan.empty() && WaitsForApproval(*task)) {
    // Checked now, against the run as it is, so that a plan the run cannot
    // take is refused while the approval still waits.
    if (absl::Status plan = CheckEditedPlan(run, *task, answer.edited_plan, options_.limits);
        !plan.ok()) {
      return plan;
    }
  }
  // Decided on a copy: a refused decision leaves the task untouched.
  store::TaskRecord decided = *task;
  if (absl::Status status = engine::Decide(decided, answer, who.name, batch_->now_ms());
      !status.ok()) {
    return status;
  }
  run.MutableTask(step_id) = decided;
  batch_->Touch(run_id);
  return decided.task();
}

void Approvals::ArmTimeout(const std::string& run_id, const store::TaskRecord& task) {
  const int64_t deadline = ApprovalDeadlineMs(task);
  if (deadline > 0) {
    timers_->Add({deadline, TimerKind::kApprovalTimeout, run_id, task.task().task_id(), ""});
  }
}

void Approvals::OnTimeout(RunState& run, const std::string& task_id) {
  const store::TaskRecord* task = run.FindTask(task_id);
  if (task == nullptr || !WaitsForApproval(*task) || ApprovalDeadlineMs(*task) > batch_->now_ms())
    return;
  DecideOnTimeout(run.MutableTask(task_id), batch_->now_ms());
  batch_->Touch(run.run_id());
}

void Approvals::Recover() {
  for (const auto& [run_id, active] : *runs_) {
    const RunState::TaskList tasks = active.state->tasks();
    for (auto it = tasks.begin(); it != tasks.end(); ++it) {
      if (it.state() != v1::TASK_STATE_RUNNING) continue;  // as in List
      if (const store::TaskRecord& task = (*it).second; WaitsForApproval(task)) {
        ApprovalTaskCommitted(active, task);
      }
    }
  }
}

void Approvals::ApprovalTaskCommitted(const ActiveRun& run, const store::TaskRecord& task) {
  const store::RunRecord& record = run.state->record();
  ApprovalRun about{record.run().run_id(), record.run().flow_name(), record.tenant(),
                    run.spec != nullptr ? run.spec->approval_webhook() : ""};
  std::optional<ApprovalEvent> event = watch_.Observe(about, task, batch_->now_ms());
  if (!event.has_value() || options_.notifier == nullptr) return;
  batch_->AfterCommit([notifier = options_.notifier, event = *std::move(event)]() mutable {
    notifier->Notify(std::move(event));
  });
}

void Approvals::TaskRemoved(const std::string& run_id, const std::string& task_id) {
  watch_.Forget(run_id, task_id);
}

void Approvals::RunEnded(const std::string& run_id) { watch_.ForgetRun(run_id); }

}  // namespace taskboard::engine
