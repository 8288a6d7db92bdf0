#ifndef TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_LIMITS_H_
#define TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_LIMITS_H_

// The caps on what a person's decision may carry (docs/security.md#limits):
// the comment, each form value, and how many form fields a flow's approval
// may ask for. A decision is stored in its task, its output and its events,
// so without them one DecideApproval could grow the store and every GetRun
// by whatever the client sent. Each limit has a scheduler flag, named in its
// error.
//
// Intake (server/flow_intake.h) checks a flow's forms at submit, validate
// and save; the engine checks an answer before it decides (engine.h
// DecideApproval).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

namespace approval_limit_flags {
inline constexpr char kMaxCommentBytes[] = "--approval-max-comment-bytes";
inline constexpr char kMaxFormValueBytes[] = "--approval-max-form-value-bytes";
inline constexpr char kMaxFormFields[] = "--approval-max-form-fields";
}  // namespace approval_limit_flags

struct ApprovalLimits {
  // A decision's comment, in bytes.
  int64_t max_comment_bytes = 4096;
  // One form value, in bytes.
  int64_t max_form_value_bytes = 4096;
  // Fields in one approval's form (the flow's), and so values in one answer.
  int max_form_fields = 64;
};

// INVALID_ARGUMENT naming the limit, the field and the flag when `answer`
// carries a comment or a form value over its limit, or more values than a
// form may have fields. Checked before anything else about the answer, so an
// oversized one is never copied into an error or a record.
absl::Status CheckApprovalAnswer(const ApprovalAnswer& answer, const ApprovalLimits& limits);

// Adds an error at the form's path for each approval of `spec` (approval
// phases, gates with an `approval:` block) whose form has more fields than
// the limit.
void CheckApprovalForms(const v1::FlowSpec& spec, const ApprovalLimits& limits,
                        flow::FlowErrorList& errors);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_APPROVALS_APPROVAL_LIMITS_H_
