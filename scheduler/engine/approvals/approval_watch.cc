#include "scheduler/engine/approvals/approval_watch.h"

#include <algorithm>
#include <utility>

#include "absl/time/time.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

ApprovalEvent MakeEvent(ApprovalEvent::Kind kind, const ApprovalRun& run,
                        const store::TaskRecord& task) {
  ApprovalEvent event;
  event.kind = kind;
  event.run_id = run.run_id;
  event.step_id = task.task().task_id();
  event.flow_name = run.flow_name;
  event.tenant = run.tenant;
  event.flow_webhook = run.flow_webhook;
  event.approval = task.task().approval();
  return event;
}

}  // namespace

std::string DecisionLabel(const v1::ApprovalDecision& decision) {
  const std::string& made = decision.decision();
  if (decision.decided_by() == "timeout") return "timeout_" + made;
  if (made == "approve" || made == "reject") return made;
  return "choice";
}

std::optional<ApprovalEvent> ApprovalWatch::Observe(const ApprovalRun& run,
                                                    const store::TaskRecord& task, int64_t now_ms) {
  if (!IsApprovalTask(task)) return std::nullopt;
  const std::string& task_id = task.task().task_id();
  if (WaitsForApproval(task)) {
    const int64_t since = ToUnixMs(task.task().approval().waiting_since());
    Pending& pending = pending_[run.run_id][task_id];
    // Touched again while waiting (nothing a person sees changed): no event.
    if (pending.since_ms == since) return std::nullopt;
    pending = Pending{run.tenant, since};
    return MakeEvent(ApprovalEvent::Kind::kWaiting, run, task);
  }
  auto by_run = pending_.find(run.run_id);
  if (by_run == pending_.end() || by_run->second.erase(task_id) == 0) return std::nullopt;
  if (by_run->second.empty()) pending_.erase(by_run);
  const v1::TaskApproval& approval = task.task().approval();
  const bool failed_by_timeout = !approval.has_decision() &&
                                 task.task().state() == v1::TASK_STATE_FAILED &&
                                 approval.on_timeout() == v1::APPROVAL_ON_TIMEOUT_FAIL &&
                                 approval.has_deadline() && now_ms >= ToUnixMs(approval.deadline());
  if (!approval.has_decision() && !failed_by_timeout) {
    // Ended undecided: its run was cancelled, or failed or was blocked by
    // another phase. Not a decision (not counted), but whoever shows the
    // approval to people must take it down.
    ApprovalEvent cancelled = MakeEvent(ApprovalEvent::Kind::kCancelled, run, task);
    cancelled.reason =
        task.task().error().empty() ? task.task().skip_reason() : task.task().error();
    cancelled.ended_unix_ms = now_ms;
    return cancelled;
  }
  ApprovalEvent event = MakeEvent(ApprovalEvent::Kind::kDecided, run, task);
  if (!approval.has_decision()) {
    // onTimeout: fail leaves no decision record, only the failed task.
    v1::ApprovalDecision& failed = *event.approval.mutable_decision();
    failed.set_decision("fail");
    failed.set_decided_by("timeout");
    failed.set_comment(task.task().error());
    *failed.mutable_decided_at() = ToTimestamp(now_ms);
  }
  const v1::ApprovalDecision& decision = event.approval.decision();
  if (metrics_ != nullptr) {
    const int64_t waited_ms = ToUnixMs(decision.decided_at()) - ToUnixMs(approval.waiting_since());
    metrics_->Decided(DecisionLabel(decision), absl::Milliseconds(std::max<int64_t>(0, waited_ms)));
  }
  return event;
}

void ApprovalWatch::Forget(const std::string& run_id, const std::string& task_id) {
  auto by_run = pending_.find(run_id);
  if (by_run == pending_.end()) return;
  by_run->second.erase(task_id);
  if (by_run->second.empty()) pending_.erase(by_run);
}

void ApprovalWatch::ForgetRun(const std::string& run_id) { pending_.erase(run_id); }

void ApprovalWatch::UpdateGauges(int64_t now_ms) {
  if (metrics_ == nullptr) return;
  std::map<std::string, int64_t> by_tenant;
  int64_t oldest_ms = now_ms;
  for (const auto& [run_id, tasks] : pending_) {
    for (const auto& [task_id, pending] : tasks) {
      ++by_tenant[pending.tenant];
      oldest_ms = std::min(oldest_ms, pending.since_ms);
    }
  }
  metrics_->UpdatePending(by_tenant, absl::Milliseconds(now_ms - oldest_ms));
}

}  // namespace taskboard::engine
