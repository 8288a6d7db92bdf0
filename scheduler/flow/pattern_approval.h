#ifndef TASKBOARD_SCHEDULER_FLOW_PATTERN_APPROVAL_H_
#define TASKBOARD_SCHEDULER_FLOW_PATTERN_APPROVAL_H_

// The approvals the patterns ask (docs/approvals.md): plan-and-execute
// `approvePlan: true | {approvers, timeoutSeconds, onTimeout}` and the
// supervisor's `onEscalate: human` with `humanReview: {...}`. Their prompt is
// written by the scheduler (the plan, the escalated result), so the DSL sets
// only who decides and how long they have; approvers and onTimeout read and
// check as on an approval phase (approval_phase.h).

#include <string>

#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// `approvePlan` at `path`: true (asked, anyone of the tenant decides, no
// timeout), false (not asked) or the object. Sets `spec->plan_approval` when
// asked.
void DecodeApprovePlan(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors);
// `onEscalate` and `humanReview` of a supervisor block (`value` is the
// field's value, `path` its path).
void DecodeOnEscalate(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors);
void DecodeHumanReview(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                       FlowErrorList* errors);

// The encoder's forms: `true` for an approval with no settings, else the
// object; "" for an unset OnEscalate.
Json EncodePatternApproval(const v1::Approval& approval);
absl::string_view OnEscalateName(v1::OnEscalate on_escalate);

// Checks under `path` (`planAndExecute.approvePlan`): approvers, and that
// onTimeout comes with timeoutSeconds.
void ValidatePatternApproval(const v1::Approval& approval, const std::string& path,
                             FlowErrorList* errors);
// A supervisor's `humanReview` needs `onEscalate: human` (`path`: the block).
void ValidateHumanReview(const v1::SupervisorSpec& spec, const std::string& path,
                         FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_PATTERN_APPROVAL_H_
