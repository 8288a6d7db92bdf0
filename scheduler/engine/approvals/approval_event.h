#ifndef TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_EVENT_H_
#define TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_EVENT_H_

// What the engine tells the outside world about approvals
// (docs/approvals.md#notify): an approval task started waiting, was
// decided (by a person or by its timeout), or stopped waiting undecided
// (its run was cancelled or failed elsewhere), so a receiver that shows it
// to people can take it down. The engine hands these, after
// the batch that made them is committed, to an ApprovalNotifier (the
// webhook sender, scheduler/notify/webhook_notifier.h).

#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

struct ApprovalEvent {
  enum class Kind { kWaiting, kDecided, kCancelled };
  Kind kind = Kind::kWaiting;
  std::string run_id;
  std::string step_id;
  std::string flow_name;
  std::string tenant;
  // The run's FlowSpec.approval_webhook (a child run's is its root's); ""
  // when the flow names none.
  std::string flow_webhook;
  // As the task holds it. Decided: `decision` is set; an approval whose
  // onTimeout failed it carries decision "fail" by "timeout".
  v1::TaskApproval approval;
  // Cancelled: why the approval stopped waiting (the task's error or skip
  // reason, e.g. "run cancelled: ...") and when.
  std::string reason;
  int64_t ended_unix_ms = 0;
};

// "approval.waiting" / "approval.decided" / "approval.cancelled": the
// webhook's event names.
absl::string_view ApprovalEventName(ApprovalEvent::Kind kind);

// Receives the engine's approval events on the engine's commit thread
// (commit_pipeline.h), after their batch is written. Must not block: implementations queue and
// return.
class ApprovalNotifier {
 public:
  virtual ~ApprovalNotifier() = default;
  virtual void Notify(ApprovalEvent event) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_EVENT_H_
