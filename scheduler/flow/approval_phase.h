#ifndef TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_
#define TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_

// Approvals of taskflow phases (docs/approvals.md): a person, not an agent,
// decides. A `type: approval` phase writes the approval's fields on the
// phase itself (`prompt`, `choices`, `form`, `onTimeout`, `approvers`,
// `onReject`); a `type: gate` phase writes them in an `approval:` block
// (`approval: true` for the defaults), and a person gives its verdict. Both
// keep them in Phase.approval, so the other phase types never see them.

#include <string>

#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// Reads the approval fields of the phase `reader` reads: on an approval
// phase, its own fields; on another, the `approval:` block (the phase-level
// fields are then reported as misplaced, naming their path).
void DecodeApprovalFields(JsonReader& reader, v1::Phase* phase, FlowErrorList* errors);

// Writes them back in DSL form into `out` (the encoder).
void EncodeApprovalFields(const v1::Phase& phase, Json& out);

// Checks the approval of the phase at `path` (or that a phase that may not
// have one has none). `onReject` needs the whole flow: approval_routes.h.
void ValidateApprovalPhase(const v1::Phase& phase, const std::string& path, FlowErrorList* errors);

// Where the DSL writes the phase's approval fields: `path` itself for an
// approval phase, `path.approval` for a gate's block.
std::string ApprovalFieldsPath(const v1::Phase& phase, const std::string& path);

// The template the approver is shown: `prompt`, or a gate's `task` when its
// block has none.
const std::string& ApprovalPromptTemplate(const v1::Phase& phase);

// Shared with the approvals patterns ask (pattern_approval.h): reads
// `onTimeout` (reject | approve | fail) and `approvers`, and checks the
// approvers' format under `path`.approvers[i].
void DecodeOnTimeoutAndApprovers(JsonReader& reader, v1::Approval* approval, FlowErrorList* errors);
void ValidateApprovers(const v1::Approval& approval, const std::string& path,
                       FlowErrorList* errors);

absl::string_view ApprovalOnTimeoutName(v1::ApprovalOnTimeout on_timeout);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_APPROVAL_PHASE_H_
