#ifndef TASKBOARD_SCHEDULER_POLICY_EXTERNAL_POLICY_H_
#define TASKBOARD_SCHEDULER_POLICY_EXTERNAL_POLICY_H_

// The `custom{external: ADDR}` policy (docs/semantics.md#external-policies): a client-run
// PolicyService chooses the prior work. The server layer makes the gRPC call
// with the policy's deadline (EffectiveExternalTimeoutMs); this file builds
// its request, applies its response, and provides the declared_deps_only
// fallback used on any error or timeout.

#include <string>
#include <vector>

#include "scheduler/policy/policy_input.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

// Whether `policy` is custom with `external` set (its selectors are then
// ignored).
bool IsExternalPolicy(const v1::FlowPolicy& policy);

// run_id, root_run_id (the ledger's, or the task's run when the ledger has
// none), the task's view (the entry of `tasks` with its run and task id; if
// absent, one built from the graph: deps as task ids, `run/task` for deps in
// other runs, state READY), `tasks` as given, and the candidate ledger: the
// newest max(0, max_candidates) observations in chronological order (read
// with ReadOrKeepError: none after a read error, which the ledger keeps).
v1::SelectPriorWorkRequest BuildExternalRequest(const PolicyInput& input,
                                                const std::vector<v1::PolicyTaskView>& tasks,
                                                int max_candidates);

// The response's seqs that exist in the ledger (any seq of the request, not
// only the candidates sent), duplicates removed, chronological; its
// narrative; meta.policy "custom", tokens_approx including the narrative.
// No max_tokens bound: the client chose exactly these.
v1::PriorWork ApplyExternalResponse(const v1::SelectPriorWorkResponse& response,
                                    const PolicyInput& input);

// What declared_deps_only selects, with meta.policy "declared_deps_only" and
// meta.fallback_reason = reason (e.g. "PolicyService at host:port: deadline
// exceeded after 2000 ms").
v1::PriorWork FallbackPriorWork(const PolicyInput& input, std::string reason);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_EXTERNAL_POLICY_H_
