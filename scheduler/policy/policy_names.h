#ifndef TASKBOARD_SCHEDULER_POLICY_POLICY_NAMES_H_
#define TASKBOARD_SCHEDULER_POLICY_POLICY_NAMES_H_

// The policy names of docs/semantics.md#flow-policies, as reported in PriorWork.meta.policy.

#include "absl/strings/string_view.h"

namespace taskboard::policy {

inline constexpr absl::string_view kPolicyNone = "none";
inline constexpr absl::string_view kPolicyDeclaredDepsOnly = "declared_deps_only";
inline constexpr absl::string_view kPolicyAncestors = "ancestors";
inline constexpr absl::string_view kPolicyRecentTrajectory = "recent_trajectory";
inline constexpr absl::string_view kPolicyAllCompleted = "all_completed";
inline constexpr absl::string_view kPolicyCompact = "compact";
inline constexpr absl::string_view kPolicyCustom = "custom";

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_POLICY_NAMES_H_
