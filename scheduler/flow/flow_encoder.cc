#include "scheduler/flow/flow_encoder.h"

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/json_write.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::flow {
namespace {
// Parameterless policies as their name; the others as {type, params...}.
Json EncodePolicy(const v1::FlowPolicy& policy) {
  const std::string name(FlowPolicyName(policy));
  if (name.empty()) return nullptr;
  Json out = {{"type", name}};
  switch (policy.policy_case()) {
    case v1::FlowPolicy::kAncestors:
      out["transitive"] = policy.ancestors().transitive();
      return out;
    case v1::FlowPolicy::kRecentTrajectory:
      out["n"] = policy.recent_trajectory().n();
      SetInt(out, "maxTokens", policy.recent_trajectory().max_tokens());
      return out;
    case v1::FlowPolicy::kAllCompleted:
      SetInt(out, "maxTokens", policy.all_completed().max_tokens());
      return out;
    case v1::FlowPolicy::kCompact:
      out["recentN"] = policy.compact().recent_n();
      SetString(out, "summarizerAgent", policy.compact().summarizer_agent());
      return out;
    case v1::FlowPolicy::kCustom: {
      const v1::CustomPolicy& custom = policy.custom();
      if (custom.deps()) out["deps"] = true;
      if (custom.ancestors()) out["ancestors"] = true;
      if (custom.errors()) out["errors"] = true;
      if (!custom.tools().empty()) out["tools"] = Strings(custom.tools());
      SetInt(out, "recent", custom.recent());
      SetInt(out, "maxTokens", custom.max_tokens());
      SetString(out, "external", custom.external());
      SetInt(out, "externalTimeoutMs", custom.external_timeout_ms());
      return out;
    }
    default:  // none, declared_deps_only
      return name;
  }
}

Json EncodeToolCache(const v1::ToolCacheConfig& config) {
  Json out = Json::object();
  if (config.has_default_ttl_ms()) out["defaultTtlMs"] = config.default_ttl_ms();
  SetString(out, "defaultScope", std::string(CacheScopeName(config.default_scope())));
  if (config.has_max_entries()) out["maxEntries"] = config.max_entries();
  if (!config.tools().empty()) {
    Json tools = Json::object();
    // Proto maps are unordered; sort for stable output.
    std::vector<std::string> names;
    for (const auto& [name, rule] : config.tools()) names.push_back(name);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const v1::ToolCacheRule& rule = config.tools().at(name);
      Json r = Json::object();
      if (rule.has_ttl_ms()) r["ttlMs"] = rule.ttl_ms();
      SetString(r, "scope", std::string(CacheScopeName(rule.scope())));
      if (!rule.key_fields().empty()) r["keyFields"] = Strings(rule.key_fields());
      SetString(r, "cacheIf", rule.cache_if());
      if (rule.has_enabled()) r["enabled"] = rule.enabled();
      tools[name] = std::move(r);
    }
    out["tools"] = std::move(tools);
  }
  return out;
}

// Only the limits that are set: `budget: {}` (set, no limit) stays `{}`.
Json EncodeRunBudget(const v1::RunBudget& budget) {
  Json out = Json::object();
  SetInt(out, "tokens", budget.tokens());
  if (budget.usd() != 0) out["usd"] = budget.usd();
  return out;
}

// budget, onBudget, priority: left out when unset, as the decoder defaults them.
void EncodeLlmGovernance(const v1::FlowSpec& spec, Json& out) {
  if (spec.has_budget()) out["budget"] = EncodeRunBudget(spec.budget());
  SetString(out, "onBudget", std::string(OnBudgetName(spec.on_budget())));
  SetInt(out, "priority", spec.priority());
}

}  // namespace

Json EncodeFlow(const v1::FlowSpec& spec) {
  Json out = Json::object();
  out["name"] = spec.name();
  SetString(out, "description", spec.description());
  // Taskflows are the default kind and stay implicit, as pi-taskflow writes them.
  if (!spec.has_taskflow() && !FlowKindName(spec).empty()) {
    out["kind"] = std::string(FlowKindName(spec));
  }
  if (!spec.args().empty()) {
    Json args = Json::object();
    for (const v1::ArgSpec& arg : spec.args()) {
      Json a = Json::object();
      if (arg.has_default_value()) {
        a["default"] = ProtoValueToJson(arg.default_value());
      }
      SetString(a, "description", arg.description());
      if (arg.required()) a["required"] = true;
      args[arg.name()] = std::move(a);
    }
    out["args"] = std::move(args);
  }
  if (spec.has_flow_policy()) out["flowPolicy"] = EncodePolicy(spec.flow_policy());
  if (spec.has_tool_cache()) out["toolCache"] = EncodeToolCache(spec.tool_cache());
  SetInt(out, "maxAttemptsPerTask", spec.max_attempts_per_task());
  SetInt(out, "timeoutSeconds", spec.timeout_seconds());
  SetInt(out, "runTimeoutSeconds", spec.run_timeout_seconds());
  EncodeLlmGovernance(spec, out);
  SetString(out, "approvalWebhook", spec.approval_webhook());
  if (const FlowKindInfo* kind = FindFlowKind(spec)) kind->encode(spec, out);
  return out;
}

}  // namespace taskboard::flow
