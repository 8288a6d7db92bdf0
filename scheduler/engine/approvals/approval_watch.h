#ifndef TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_WATCH_H_
#define TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_WATCH_H_

// Sees every approval task of every run at the one place all task changes
// pass, the engine's commit, whichever driver made them (taskflow phases,
// gates, plan approvals, supervisor reviews): turns "started waiting" and
// "was decided" into ApprovalEvents for the webhook, and keeps the pending
// set that the approval metrics read (approval_metrics.h).
//
// After a restart the engine shows it the waiting tasks of the runs it
// loaded, so the gauges are right again and each waiting approval is
// announced once more (decision "Approval webhook after a restart",
// docs/decisions.md): events still queued when the previous process
// stopped are lost, and a receiver tells a repeat by its delivery id,
// which does not change.
//
// Loop-thread only.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/engine/approvals/approval_event.h"
#include "scheduler/engine/approvals/approval_metrics.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

// The label of taskboard_approvals_decided_total for a decided (or, by
// onTimeout: fail, failed) approval task: approve, reject, choice, or
// timeout_ with approve, reject or fail.
std::string DecisionLabel(const v1::ApprovalDecision& decision);

// The run an approval task belongs to, as events name it.
struct ApprovalRun {
  std::string run_id;
  std::string flow_name;
  std::string tenant;
  std::string flow_webhook;
};

class ApprovalWatch {
 public:
  // `metrics` may be null (no metrics); it outlives the watch.
  explicit ApprovalWatch(ApprovalMetrics* metrics = nullptr) : metrics_(metrics) {}

  // A committed change of `task`: the event it makes, if any. A task that
  // starts waiting (again, after a resume) makes kWaiting; a pending one
  // that was decided, or failed by its timeout, makes kDecided and is
  // counted; one that ended otherwise (its run cancelled, or failed by
  // another phase) makes kCancelled, not counted as a decision.
  std::optional<ApprovalEvent> Observe(const ApprovalRun& run, const store::TaskRecord& task,
                                       int64_t now_ms);
  // `task_id` of `run_id` is gone (deleted, or its run ended): no longer
  // pending.
  void Forget(const std::string& run_id, const std::string& task_id);
  void ForgetRun(const std::string& run_id);

  // Sets the gauges (pending by tenant, oldest age); after every batch.
  void UpdateGauges(int64_t now_ms);
  size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    std::string tenant;
    int64_t since_ms = 0;
  };
  ApprovalMetrics* metrics_;
  // By run id, then task id.
  std::map<std::string, std::map<std::string, Pending>> pending_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_WATCH_H_
