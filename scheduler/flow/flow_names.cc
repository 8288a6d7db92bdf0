#include "scheduler/flow/flow_names.h"

#include <utility>

namespace taskboard::flow {
namespace {

constexpr std::pair<v1::PhaseType, absl::string_view> kPhaseTypes[] = {
    {v1::PHASE_TYPE_AGENT, "agent"},   {v1::PHASE_TYPE_PARALLEL, "parallel"},
    {v1::PHASE_TYPE_MAP, "map"},       {v1::PHASE_TYPE_GATE, "gate"},
    {v1::PHASE_TYPE_REDUCE, "reduce"},
};

constexpr std::pair<v1::CacheScope, absl::string_view> kCacheScopes[] = {
    {v1::CACHE_SCOPE_RUN, "run"},
    {v1::CACHE_SCOPE_REQUEST, "request"},
    {v1::CACHE_SCOPE_SESSION, "session"},
};

}  // namespace

absl::string_view PhaseTypeName(v1::PhaseType type) {
  for (const auto& [value, name] : kPhaseTypes) {
    if (value == type) return name;
  }
  return "agent";
}

std::optional<v1::PhaseType> PhaseTypeFromName(absl::string_view name) {
  for (const auto& [value, known] : kPhaseTypes) {
    if (known == name) return value;
  }
  return std::nullopt;
}

absl::string_view CacheScopeName(v1::CacheScope scope) {
  for (const auto& [value, name] : kCacheScopes) {
    if (value == scope) return name;
  }
  return "";
}

std::optional<v1::CacheScope> CacheScopeFromName(absl::string_view name) {
  for (const auto& [value, known] : kCacheScopes) {
    if (known == name) return value;
  }
  return std::nullopt;
}

absl::string_view FlowKindName(const v1::FlowSpec& spec) {
  switch (spec.kind_case()) {
    case v1::FlowSpec::kTaskflow:
      return "taskflow";
    case v1::FlowSpec::kPlanAndExecute:
      return "plan_and_execute";
    case v1::FlowSpec::kSupervisor:
      return "supervisor";
    case v1::FlowSpec::kBoard:
      return "board";
    case v1::FlowSpec::KIND_NOT_SET:
      break;
  }
  return "";
}

absl::string_view FlowPolicyName(const v1::FlowPolicy& policy) {
  switch (policy.policy_case()) {
    case v1::FlowPolicy::kNone:
      return "none";
    case v1::FlowPolicy::kDeclaredDepsOnly:
      return "declared_deps_only";
    case v1::FlowPolicy::kAncestors:
      return "ancestors";
    case v1::FlowPolicy::kRecentTrajectory:
      return "recent_trajectory";
    case v1::FlowPolicy::kAllCompleted:
      return "all_completed";
    case v1::FlowPolicy::kCompact:
      return "compact";
    case v1::FlowPolicy::kCustom:
      return "custom";
    case v1::FlowPolicy::POLICY_NOT_SET:
      break;
  }
  return "";
}

}  // namespace taskboard::flow
