#ifndef TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_
#define TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_

// `type: approval` phases (docs/approvals.md): a person, not an agent,
// decides. The DSL writes the approval's fields on the phase itself
// (`prompt`, `choices`, `form`, `onTimeout`, `approvers`); they are kept in
// Phase.approval so the other phase types never see them.

#include <string>

#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// Reads the approval fields of the phase `reader` reads, on any type (so a
// misapplied one is reported by validation, not as an unknown field).
void DecodeApprovalFields(JsonReader& reader, v1::Phase* phase, FlowErrorList* errors);

// Writes them back in DSL form into `out` (the encoder).
void EncodeApprovalFields(const v1::Phase& phase, Json& out);

// Checks an approval phase at `path` (or that a phase of another type has
// no approval fields).
void ValidateApprovalPhase(const v1::Phase& phase, const std::string& path, FlowErrorList* errors);

// Shared with the approvals patterns ask (pattern_approval.h): reads
// `onTimeout` (reject | approve | fail) and `approvers`, and checks the
// approvers' format under `path`.approvers[i].
void DecodeOnTimeoutAndApprovers(JsonReader& reader, v1::Approval* approval, FlowErrorList* errors);
void ValidateApprovers(const v1::Approval& approval, const std::string& path,
                       FlowErrorList* errors);

absl::string_view ApprovalOnTimeoutName(v1::ApprovalOnTimeout on_timeout);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_
