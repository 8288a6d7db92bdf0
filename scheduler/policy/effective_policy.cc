#include "scheduler/policy/effective_policy.h"

namespace taskboard::policy {

v1::FlowPolicy DefaultPolicy(v1::FlowKind kind) {
  v1::FlowPolicy policy;
  if (kind == v1::FLOW_KIND_PLAN_AND_EXECUTE) {
    // Each step sees the run's latest progress regardless of declared deps,
    // matching how the evaluator and replanner think about it (seed 001).
    policy.mutable_recent_trajectory()->set_n(kDefaultRecentN);
  } else {
    policy.mutable_declared_deps_only();
  }
  return policy;
}

v1::FlowPolicy EffectivePolicy(const v1::FlowPolicy& configured, v1::FlowKind kind) {
  v1::FlowPolicy policy =
      configured.policy_case() == v1::FlowPolicy::POLICY_NOT_SET ? DefaultPolicy(kind) : configured;
  switch (policy.policy_case()) {
    case v1::FlowPolicy::kRecentTrajectory:
      policy.mutable_recent_trajectory()->set_n(EffectiveRecentN(policy.recent_trajectory()));
      break;
    case v1::FlowPolicy::kCompact:
      policy.mutable_compact()->set_recent_n(EffectiveCompactRecentN(policy.compact()));
      break;
    case v1::FlowPolicy::kCustom:
      if (!policy.custom().external().empty()) {
        policy.mutable_custom()->set_external_timeout_ms(
            EffectiveExternalTimeoutMs(policy.custom()));
      }
      break;
    default:
      break;
  }
  return policy;
}

int32_t EffectiveRecentN(const v1::RecentTrajectoryPolicy& policy) {
  return policy.n() > 0 ? policy.n() : kDefaultRecentN;
}

int32_t EffectiveCompactRecentN(const v1::CompactPolicy& policy) {
  return policy.recent_n() > 0 ? policy.recent_n() : kDefaultCompactRecentN;
}

int64_t EffectiveExternalTimeoutMs(const v1::CustomPolicy& policy) {
  return policy.external_timeout_ms() > 0 ? policy.external_timeout_ms()
                                          : kDefaultExternalTimeoutMs;
}

}  // namespace taskboard::policy
