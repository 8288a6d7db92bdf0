#include "scheduler/flow/flow_names.h"

#include <utility>

#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {
namespace {

template <typename Enum>
struct Named {
  Enum value;
  absl::string_view name;
};

constexpr Named<v1::PhaseType> kPhaseTypes[] = {
    {v1::PHASE_TYPE_AGENT, "agent"},   {v1::PHASE_TYPE_PARALLEL, "parallel"},
    {v1::PHASE_TYPE_MAP, "map"},       {v1::PHASE_TYPE_GATE, "gate"},
    {v1::PHASE_TYPE_REDUCE, "reduce"}, {v1::PHASE_TYPE_APPROVAL, "approval"},
};
constexpr Named<v1::CacheScope> kCacheScopes[] = {
    {v1::CACHE_SCOPE_RUN, "run"},
    {v1::CACHE_SCOPE_REQUEST, "request"},
    {v1::CACHE_SCOPE_SESSION, "session"},
};
constexpr Named<v1::OutputFormat> kOutputFormats[] = {
    {v1::OUTPUT_FORMAT_TEXT, "text"},
    {v1::OUTPUT_FORMAT_JSON, "json"},
};
constexpr Named<v1::EvaluatorKind> kEvaluatorKinds[] = {
    {v1::EVALUATOR_KIND_DETERMINISTIC, "deterministic"},
    {v1::EVALUATOR_KIND_LLM, "llm"},
};
constexpr Named<v1::SubTaskErrorMode> kSubTaskErrorModes[] = {
    {v1::SUB_TASK_ERROR_MODE_SKIP, "skip"},
    {v1::SUB_TASK_ERROR_MODE_FAIL, "fail"},
    {v1::SUB_TASK_ERROR_MODE_RETRY, "retry"},
};
constexpr Named<v1::OnBudget> kOnBudgets[] = {
    {v1::ON_BUDGET_PAUSE, "pause"},
    {v1::ON_BUDGET_FAIL, "fail"},
};

template <typename Enum, size_t N>
absl::string_view NameOf(const Named<Enum> (&table)[N], Enum value, absl::string_view fallback) {
  for (const Named<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return fallback;
}

template <typename Enum, size_t N>
std::optional<Enum> ValueOf(const Named<Enum> (&table)[N], absl::string_view name) {
  for (const Named<Enum>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace

absl::string_view PhaseTypeName(v1::PhaseType type) { return NameOf(kPhaseTypes, type, "agent"); }
std::optional<v1::PhaseType> PhaseTypeFromName(absl::string_view name) {
  return ValueOf(kPhaseTypes, name);
}

absl::string_view CacheScopeName(v1::CacheScope scope) { return NameOf(kCacheScopes, scope, ""); }
std::optional<v1::CacheScope> CacheScopeFromName(absl::string_view name) {
  return ValueOf(kCacheScopes, name);
}

absl::string_view OutputFormatName(v1::OutputFormat format) {
  return NameOf(kOutputFormats, format, "");
}
std::optional<v1::OutputFormat> OutputFormatFromName(absl::string_view name) {
  return ValueOf(kOutputFormats, name);
}

absl::string_view EvaluatorKindName(v1::EvaluatorKind kind) {
  return NameOf(kEvaluatorKinds, kind, "");
}
std::optional<v1::EvaluatorKind> EvaluatorKindFromName(absl::string_view name) {
  return ValueOf(kEvaluatorKinds, name);
}

absl::string_view SubTaskErrorModeName(v1::SubTaskErrorMode mode) {
  return NameOf(kSubTaskErrorModes, mode, "");
}
std::optional<v1::SubTaskErrorMode> SubTaskErrorModeFromName(absl::string_view name) {
  return ValueOf(kSubTaskErrorModes, name);
}

absl::string_view OnBudgetName(v1::OnBudget on_budget) { return NameOf(kOnBudgets, on_budget, ""); }
std::optional<v1::OnBudget> OnBudgetFromName(absl::string_view name) {
  return ValueOf(kOnBudgets, name);
}

absl::string_view FlowKindName(const v1::FlowSpec& spec) {
  const FlowKindInfo* kind = FindFlowKind(spec);
  return kind == nullptr ? "" : kind->name;
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
