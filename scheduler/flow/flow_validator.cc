#include "scheduler/flow/flow_validator.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/webhook_url.h"
#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/flow_options_decoder.h"
#include "scheduler/flow/interpolation.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {

bool IsFlowName(absl::string_view name) {
  if (name.empty() || name.size() > 128 ||
      !absl::ascii_isalnum(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

namespace {

absl::flat_hash_set<std::string> ArgNames(const v1::FlowSpec& spec, FlowErrorList* errors) {
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < spec.args_size(); ++i) {
    const std::string& name = spec.args(i).name();
    const std::string path = JoinPath("args", name.empty() ? IndexPath("", i) : name);
    if (!IsPlaceholderSegment(name)) {
      errors->Add(path, absl::StrCat("arg name '", name,
                                     "' may only contain letters, digits, '_' and '-'"));
    } else if (!names.insert(name).second) {
      errors->Add(path, absl::StrCat("duplicate arg '", name, "'"));
    }
  }
  return names;
}

// The DSL decoder keeps out-of-range values from reaching the spec; these
// checks are for specs sent as protos, which can hold anything.
void ValidateLlmGovernance(const v1::FlowSpec& spec, FlowErrorList* errors) {
  if (spec.budget().tokens() < 0) {
    errors->Add("budget.tokens", absl::StrCat("must be an integer >= 0 (got ",
                                              spec.budget().tokens(), "); 0 is no limit"));
  }
  if (const double usd = spec.budget().usd(); !std::isfinite(usd) || usd < 0) {
    errors->Add("budget.usd",
                absl::StrCat("must be a finite number >= 0 (got ", usd, "); 0 is no limit"));
  }
  if (spec.on_budget() != v1::ON_BUDGET_UNSPECIFIED && OnBudgetName(spec.on_budget()).empty()) {
    errors->Add("onBudget", absl::StrCat("unknown value ", static_cast<int>(spec.on_budget()),
                                         "; use pause or fail"));
  }
  if (spec.priority() < -kMaxFlowPriority || spec.priority() > kMaxFlowPriority) {
    errors->Add("priority", absl::StrCat("must be an integer from ", -kMaxFlowPriority, " to ",
                                         kMaxFlowPriority, " (got ", spec.priority(), ")"));
  }
}

}  // namespace

void ValidateFlow(const v1::FlowSpec& spec, FlowErrorList* errors) {
  if (errors->IsBroken("")) return;  // the document itself was unusable
  if (spec.name().empty()) {
    errors->Add("name", "missing flow name");
  } else if (!IsFlowName(spec.name())) {
    errors->Add("name", absl::StrCat("flow name '", spec.name(),
                                     "' must start with a letter or digit and use only letters, "
                                     "digits, '_', '-' and '.' (at most 128)"));
  }
  const absl::flat_hash_set<std::string> args = ArgNames(spec, errors);
  ValidateLlmGovernance(spec, errors);
  // A spec sent as a proto skips the decoder's bounds.
  if (spec.run_timeout_seconds() < 0 || spec.run_timeout_seconds() > kMaxRunTimeoutSeconds) {
    errors->Add("runTimeoutSeconds",
                absl::StrCat("must be from 1 to ", kMaxRunTimeoutSeconds,
                             " seconds (30 days), or 0 for no run deadline (got ",
                             spec.run_timeout_seconds(), ")"));
  }
  if (!spec.approval_webhook().empty()) {
    if (absl::Status url = CheckWebhookUrl(spec.approval_webhook()); !url.ok()) {
      errors->Add("approvalWebhook", std::string(url.message()));
    }
  }
  if (const FlowKindInfo* kind = FindFlowKind(spec)) {
    kind->validate(spec, args, errors);
    return;
  }
  if (errors->IsBroken("kind")) return;  // the missing block is already reported
  // "set taskflow, plan_and_execute, supervisor or board"
  std::vector<absl::string_view> names;
  for (const FlowKindInfo* kind : AllFlowKinds()) names.push_back(kind->name);
  const absl::string_view last = names.back();
  names.pop_back();
  errors->Add("", absl::StrCat("flow has no kind: set ", absl::StrJoin(names, ", "), " or ", last));
}

}  // namespace taskboard::flow
