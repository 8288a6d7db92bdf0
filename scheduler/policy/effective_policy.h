#ifndef TASKBOARD_SCHEDULER_POLICY_EFFECTIVE_POLICY_H_
#define TASKBOARD_SCHEDULER_POLICY_EFFECTIVE_POLICY_H_

// The policy a run actually uses: the configured one with its zero values
// replaced by defaults, or the flow kind's default when none is configured.
//
// Defaults (proto3 zero = unset):
//   no policy          declared_deps_only for board, taskflow, supervisor (and
//                      an unspecified kind); recent_trajectory{n: 8} for
//                      plan_and_execute.
//   recent_trajectory.n <= 0      -> 8
//   compact.recent_n <= 0         -> 8 (the same verbatim window)
//   custom.external_timeout_ms <= 0 (with external set) -> 2000
//   max_tokens <= 0 (any policy)  -> unbounded (left as is)
//   custom.recent 0               -> no recent selector (left as is: in a
//                                    union, 0 means "not selected")
//   compact.summarizer_agent ""   -> no summary; older observations are
//                                    dropped (the seed's v1 compact)

#include <cstdint>

#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

inline constexpr int32_t kDefaultRecentN = 8;
inline constexpr int32_t kDefaultCompactRecentN = 8;
inline constexpr int64_t kDefaultExternalTimeoutMs = 2000;

v1::FlowPolicy EffectivePolicy(const v1::FlowPolicy& configured, v1::FlowKind kind);

// The kind's default, used when a run configures no policy.
v1::FlowPolicy DefaultPolicy(v1::FlowKind kind);

// The same defaults, read from one field without copying the policy (the
// selection path uses these, so a policy that skipped EffectivePolicy still
// behaves the same).
int32_t EffectiveRecentN(const v1::RecentTrajectoryPolicy& policy);
int32_t EffectiveCompactRecentN(const v1::CompactPolicy& policy);
int64_t EffectiveExternalTimeoutMs(const v1::CustomPolicy& policy);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_EFFECTIVE_POLICY_H_
