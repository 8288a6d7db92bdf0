#ifndef TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_POLICY_H_
#define TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_POLICY_H_

// Prior-work selection (docs/semantics.md#flow-policies): before each dispatch the engine asks
// the run's flow policy which observations of the request the task is told
// about.
//
// What each policy selects (always ascending seq, no duplicates, with meta
// {policy, selected, available, tokens_approx}):
//   none                nothing.
//   declared_deps_only  the observations of the task's declared deps.
//   ancestors           the same, or with `transitive` the whole upstream
//                       closure.
//   recent_trajectory   the last n of the request, then max_tokens.
//   all_completed       the observations of every completed task, then
//                       max_tokens.
//   custom              the union of its selectors (deps; ancestors, always
//                       transitive; errors; tools; recent n), then max_tokens.
//   compact             see compaction.h; here: the verbatim window alone.
//
// The task's own earlier observations (a previous attempt's calls): the
// dependency-based selectors (declared_deps_only, ancestors, custom deps /
// ancestors) never include the task itself, since they answer "what did the
// work I build on find"; the request-wide selectors (recent_trajectory,
// custom errors / tools / recent, compact) include everything in the
// request, so a retry sees what its failed attempt tried. Observations
// without a task id belong to no task: only request-wide selectors see them.
//
// compact with a narrative and custom.external need work outside this
// function (a summarizer task; a PolicyService call) and have their own
// entry points in compaction.h and external_policy.h.

#include "scheduler/policy/policy_input.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

// `policy` should come from EffectivePolicy; an unset one selects like
// declared_deps_only, and zero values get their defaults here too. A
// custom.external policy yields FallbackPriorWork (the server layer makes
// the PolicyService call; this function cannot).
v1::PriorWork SelectPriorWork(const v1::FlowPolicy& policy, const PolicyInput& input);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_PRIOR_WORK_POLICY_H_
