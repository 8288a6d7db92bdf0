#ifndef TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_BUILDER_H_
#define TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_BUILDER_H_

// Turns a policy's selection into the PriorWork a task receives, with the
// meta every policy reports (docs/semantics.md#prior-work-an-agent-receives).

#include "absl/strings/string_view.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/policy/token_estimate.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

// Copies of the selected observations (in selection order, which callers
// keep ascending; read with RequestLedger::ReadOrKeepError, so a ledger
// with a source that fails leaves them out and keeps the error) and meta {policy, selected,
// available = ledger size, tokens_approx = selection.tokens}.
v1::PriorWork MakePriorWork(absl::string_view policy_name, const RequestLedger& ledger,
                            const TokenBounded& selection);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_BUILDER_H_
