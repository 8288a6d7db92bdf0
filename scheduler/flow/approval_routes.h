#ifndef TASKBOARD_SCHEDULER_FLOW_APPROVAL_ROUTES_H_
#define TASKBOARD_SCHEDULER_FLOW_APPROVAL_ROUTES_H_

// Rejection routes (DSL `onReject`, docs/approvals.md): an approval phase or
// approval gate whose `onReject` names phases does not block the run when a
// person rejects. Of the phases that depend on it, the named ones run only
// on a rejection, and the others only on an approval:
//
//   draft -> approve --approve--> publish        (revise: skipped)
//                    \--reject--> revise         (publish: skipped)
//
// The rule is here, free of the engine, so the driver and `taskboard
// validate` agree on it.

#include <string>

#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// Whether `phase` routes its rejection instead of blocking the run.
bool RoutesRejection(const v1::Phase& phase);

// How an approval phase ended, as the rule needs it.
struct ApprovalOutcome {
  bool completed = false;  // decided (else it failed, was skipped or cancelled)
  bool rejected = false;
  // Of the rejection, as the skipped phases show it: "rejected by alice (see
  // its decision)"; the engine leaves the comment out, since every skipped
  // phase gets a copy.
  std::string reason;
};

// Why a phase that depends directly on `approval` must be skipped now that
// `approval` ended as `outcome` says; "" when it may run (or when the usual
// rules decide, e.g. `approval` failed). `on_route`: the phase is named in
// its onReject (the caller looks it up, so a long list costs one lookup).
// A phase on the route is skipped unless the approval completed rejected;
// any other is skipped when it did.
std::string RouteSkipReason(const v1::Phase& approval, const ApprovalOutcome& outcome,
                            bool on_route);

// Checks every `onReject` of `flow`: each names an existing phase, other
// than the approval itself, that depends on it directly (dependsOn), once.
// Errors name the path, e.g. `phases[1].approval.onReject[0]`.
void ValidateApprovalRoutes(const v1::TaskflowSpec& flow, FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_APPROVAL_ROUTES_H_
