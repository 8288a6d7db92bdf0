#ifndef TASKBOARD_SCHEDULER_NOTIFY_APPROVAL_PAYLOAD_H_
#define TASKBOARD_SCHEDULER_NOTIFY_APPROVAL_PAYLOAD_H_

// The JSON body the approval webhook POSTs (docs/approvals.md#notify) and
// its delivery id.

#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/engine/approvals/approval_event.h"

namespace taskboard::notify {

// "dlv_" and 32 hex digits, derived from the event, the approval's wait and
// the URL: unique per delivery, the same on every retry, and the same when
// a restart announces a waiting approval again (so receivers can tell
// repeats).
std::string DeliveryId(const engine::ApprovalEvent& event, absl::string_view url);

// {event, delivery_id, run_id, step_id, flow_name, tenant, prompt, choices,
// form, approvers, waiting_since, deadline, on_timeout} and, for
// approval.decided, {decision, choice, values, comment, decided_by,
// decided_at}. Times are RFC 3339 UTC; a missing deadline is null.
std::string ApprovalPayloadJson(const engine::ApprovalEvent& event, absl::string_view delivery_id);

}  // namespace taskboard::notify

#endif  // TASKBOARD_SCHEDULER_NOTIFY_APPROVAL_PAYLOAD_H_
