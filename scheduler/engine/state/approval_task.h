#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_APPROVAL_TASK_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_APPROVAL_TASK_H_

// Approval tasks (docs/approvals.md): the one task of a `type: approval`
// phase or of a gate with an `approval:` block. It is never dispatched: it
// waits RUNNING, with no worker, lease or slot, until a person decides
// (Decide) or its deadline passes (DecideOnTimeout). Its output is the
// decision as JSON, so downstream phases read `{steps.ID.json.values.x}` (or
// `{steps.ID.output.x}`); a rejection completes the task and the taskflow
// driver then blocks the run like a gate, or follows the phase's `onReject`.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

inline constexpr char kApprovalRole[] = "approval";

// Who asks to decide: the token's name ("local" without authentication) and
// whether it is an admin.
struct Approver {
  std::string name;
  bool admin = false;
  // Authentication is off: there are no identities to check, so anyone may.
  bool unchecked = false;
};

struct ApprovalAnswer {
  // approve | reject | choice (then `choice` names it).
  std::string decision;
  std::string choice;
  std::map<std::string, std::string> values;
  std::string comment;
  // Plan approvals only: approve this plan (JSON) instead of the planner's.
  // The engine checks it against the run first (plan_approval.h).
  std::string edited_plan;
};

bool IsApprovalTask(const store::TaskRecord& task);
// An approval task still waiting for its decision.
bool WaitsForApproval(const store::TaskRecord& task);

// Fills in what the approver is shown (the interpolated `prompt`).
void DescribeApproval(store::TaskRecord& task, const v1::Phase& phase, std::string prompt);
// The same for an approval a pattern asks (`approvePlan`, `humanReview`),
// offering `choices` besides approve and reject.
void DescribeApproval(store::TaskRecord& task, const v1::Approval& spec,
                      const std::vector<std::string>& choices, std::string prompt);
// Starts the wait: RUNNING from now, with its deadline when the phase has a
// timeout.
void StartWaiting(store::TaskRecord& task, int64_t timeout_seconds, int64_t now_ms);
// Asks again: a decided or failed approval task waits again from now, with
// the timeout it had (ResumeRun: a rejection is not reused).
void AskAgain(store::TaskRecord& task, int64_t now_ms);
// The deadline in unix ms; 0 without one.
int64_t ApprovalDeadlineMs(const store::TaskRecord& task);

// PERMISSION_DENIED, naming who may decide, when `who` is not one of the
// task's approvers (none listed: anyone who can see the run).
absl::Status CheckApprover(const store::TaskRecord& task, const Approver& who);
// Completes a waiting task with `answer`. FAILED_PRECONDITION naming who
// decided first and when; INVALID_ARGUMENT for an unknown decision or choice,
// or required form values missing (naming them); `edited_plan` with a
// decision other than approve.
absl::Status Decide(store::TaskRecord& task, const ApprovalAnswer& answer,
                    const std::string& decided_by, int64_t now_ms);
// The deadline passed: decides as the phase's onTimeout says (reject by
// default), or fails the task.
void DecideOnTimeout(store::TaskRecord& task, int64_t now_ms);

// Whether the decided task was rejected, and the reason the run is blocked
// with.
bool IsRejected(const store::TaskRecord& task);
std::string RejectionReason(const store::TaskRecord& task);
// What the phases a rejection skips say: who rejected, and that the comment
// is in the approval's decision ("rejected by alice (see its decision)").
// Never the comment itself, which would be copied into every skipped phase,
// its events and GetRun.
std::string RejectionReference(const store::TaskRecord& task);

// `text` as an error message quotes what a client sent: at most 64 bytes
// (whole characters), then "…". A refusal never echoes megabytes back. Here,
// below approvals/approval_limits.h, because Decide quotes an unknown choice
// or form field with it too.
std::string QuotedInError(absl::string_view text);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_APPROVAL_TASK_H_
