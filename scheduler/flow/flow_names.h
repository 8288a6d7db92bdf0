#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_NAMES_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_NAMES_H_

// The DSL names of the flow enums, in both directions: one table per enum so
// decoding, encoding, validation messages and the CLI always agree.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::flow {

// agent | parallel | map | gate | reduce (UNSPECIFIED reads as agent, the default).
absl::string_view PhaseTypeName(v1::PhaseType type);
std::optional<v1::PhaseType> PhaseTypeFromName(absl::string_view name);

// run | request | session; "" for UNSPECIFIED.
absl::string_view CacheScopeName(v1::CacheScope scope);
std::optional<v1::CacheScope> CacheScopeFromName(absl::string_view name);

// text | json; "" for UNSPECIFIED.
absl::string_view OutputFormatName(v1::OutputFormat format);
std::optional<v1::OutputFormat> OutputFormatFromName(absl::string_view name);

// deterministic | llm; "" for UNSPECIFIED.
absl::string_view EvaluatorKindName(v1::EvaluatorKind kind);
std::optional<v1::EvaluatorKind> EvaluatorKindFromName(absl::string_view name);

// skip | fail | retry; "" for UNSPECIFIED.
absl::string_view SubTaskErrorModeName(v1::SubTaskErrorMode mode);
std::optional<v1::SubTaskErrorMode> SubTaskErrorModeFromName(absl::string_view name);

// pause | fail; "" for UNSPECIFIED (which means pause) and unknown values.
absl::string_view OnBudgetName(v1::OnBudget on_budget);
std::optional<v1::OnBudget> OnBudgetFromName(absl::string_view name);

// taskflow | plan_and_execute | supervisor | board; "" when no kind is set.
absl::string_view FlowKindName(const v1::FlowSpec& spec);

// none | declared_deps_only | ancestors | recent_trajectory | all_completed |
// compact | custom; "" when unset.
absl::string_view FlowPolicyName(const v1::FlowPolicy& policy);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_NAMES_H_
