#include "scheduler/flow/flow_encoder.h"

#include <string>

#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/pattern_approval.h"
#include "scheduler/flow/phase_pattern.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::flow {
namespace {

template <typename List>
Json Strings(const List& list) {
  Json out = Json::array();
  for (const std::string& value : list) out.push_back(value);
  return out;
}

void SetString(Json& obj, const char* key, const std::string& value) {
  if (!value.empty()) obj[key] = value;
}

void SetInt(Json& obj, const char* key, int64_t value) {
  if (value != 0) obj[key] = value;
}

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

Json EncodeSupervisor(const v1::SupervisorSpec& spec);
Json EncodePlanExecute(const v1::PlanExecuteSpec& spec);

Json EncodePhase(const v1::Phase& phase) {
  Json out = Json::object();
  out["id"] = phase.id();
  // `type: plan` / `type: supervise` is an agent phase carried out by a
  // pattern; a map phase keeps its type and carries the block.
  out["type"] = std::string(PhaseTypeSpelling(phase));
  // An empty block is left out only where `type` already names the pattern:
  // a map's block, even `{}`, is what makes its items child runs.
  if (phase.has_plan()) {
    Json block = EncodePlanExecute(phase.plan());
    if (!block.empty() || phase.type() != v1::PHASE_TYPE_AGENT) out["plan"] = std::move(block);
  } else if (phase.has_supervise()) {
    Json block = EncodeSupervisor(phase.supervise());
    if (!block.empty() || phase.type() != v1::PHASE_TYPE_AGENT) {
      out["supervise"] = std::move(block);
    }
  }
  SetString(out, "agent", phase.agent());
  SetString(out, "task", phase.task());
  if (!phase.depends_on().empty()) out["dependsOn"] = Strings(phase.depends_on());
  SetString(out, "over", phase.over());
  SetString(out, "as", phase.item_var());
  if (!phase.branches().empty()) {
    Json branches = Json::array();
    for (const v1::Branch& branch : phase.branches()) {
      Json b = {{"task", branch.task()}};
      SetString(b, "agent", branch.agent());
      branches.push_back(std::move(b));
    }
    out["branches"] = std::move(branches);
  }
  if (!phase.from_phases().empty()) out["from"] = Strings(phase.from_phases());
  SetString(out, "output", std::string(OutputFormatName(phase.output())));
  SetString(out, "model", phase.model());
  SetString(out, "thinking", phase.thinking());
  if (!phase.tools().empty()) out["tools"] = Strings(phase.tools());
  SetString(out, "cwd", phase.cwd());
  SetInt(out, "concurrency", phase.concurrency());
  if (phase.is_final()) out["final"] = true;
  if (phase.is_optional()) out["optional"] = true;
  if (phase.has_retries()) out["retries"] = phase.retries();
  SetInt(out, "timeoutSeconds", phase.timeout_seconds());
  if (phase.has_cacheable()) {
    const v1::PhaseCacheOverride& cacheable = phase.cacheable();
    if (cacheable.has_all_tools()) {
      out["cacheable"] = cacheable.all_tools();
    } else {
      Json tools = Json::object();
      std::vector<std::string> names;
      for (const auto& [name, enabled] : cacheable.tools()) names.push_back(name);
      std::sort(names.begin(), names.end());
      for (const std::string& name : names) tools[name] = cacheable.tools().at(name);
      out["cacheable"] = std::move(tools);
    }
  }
  EncodeApprovalFields(phase, out);
  return out;
}

Json EncodeSupervisor(const v1::SupervisorSpec& spec) {
  Json out = Json::object();
  SetString(out, "goal", spec.goal());
  SetString(out, "plannerAgent", spec.planner_agent());
  SetString(out, "workerAgent", spec.worker_agent());
  SetString(out, "reviewerAgent", spec.reviewer_agent());
  if (!spec.review_criteria().empty()) out["reviewCriteria"] = Strings(spec.review_criteria());
  SetInt(out, "maxIterations", spec.max_iterations());
  SetInt(out, "maxConcurrency", spec.max_concurrency());
  SetString(out, "synthesizerAgent", spec.synthesizer_agent());
  SetString(out, "onSubTaskError", std::string(SubTaskErrorModeName(spec.on_sub_task_error())));
  if (spec.has_max_replans()) out["maxReplans"] = spec.max_replans();
  SetString(out, "onEscalate", std::string(OnEscalateName(spec.on_escalate())));
  if (spec.has_human_review()) out["humanReview"] = EncodePatternApproval(spec.human_review());
  return out;
}

Json EncodePlanExecute(const v1::PlanExecuteSpec& spec) {
  Json out = Json::object();
  SetString(out, "goal", spec.goal());
  SetString(out, "plannerAgent", spec.planner_agent());
  SetString(out, "executorAgent", spec.executor_agent());
  if (spec.has_step_executor()) out["stepExecutor"] = EncodeSupervisor(spec.step_executor());
  if (!spec.step_flow().empty()) out["stepExecutor"] = Json{{"flow", spec.step_flow()}};
  SetString(out, "evaluator", std::string(EvaluatorKindName(spec.evaluator())));
  SetString(out, "evaluatorAgent", spec.evaluator_agent());
  if (spec.enable_replanning()) out["enableReplanning"] = true;
  SetString(out, "replannerAgent", spec.replanner_agent());
  SetInt(out, "maxIterations", spec.max_iterations());
  SetInt(out, "maxConcurrency", spec.max_concurrency());
  SetString(out, "synthesizerAgent", spec.synthesizer_agent());
  SetString(out, "executionInstructions", spec.execution_instructions());
  SetString(out, "synthesizeInstructions", spec.synthesize_instructions());
  if (spec.has_plan_approval()) out["approvePlan"] = EncodePatternApproval(spec.plan_approval());
  return out;
}

Json EncodeBoard(const v1::BoardSpec& board) {
  Json out = Json::object();
  SetInt(out, "concurrency", board.concurrency());
  Json tasks = Json::array();
  for (const v1::BoardTask& task : board.tasks()) {
    Json t = {{"id", task.id()}};
    SetString(t, "agent", task.agent());
    SetString(t, "task", task.task());
    if (!task.deps().empty()) t["deps"] = Strings(task.deps());
    SetInt(t, "priority", task.priority());
    if (task.is_optional()) t["optional"] = true;
    if (task.has_retries()) t["retries"] = task.retries();
    SetInt(t, "timeoutSeconds", task.timeout_seconds());
    tasks.push_back(std::move(t));
  }
  out["tasks"] = std::move(tasks);
  return out;
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
  EncodeLlmGovernance(spec, out);
  SetString(out, "approvalWebhook", spec.approval_webhook());
  switch (spec.kind_case()) {
    case v1::FlowSpec::kTaskflow: {
      SetInt(out, "concurrency", spec.taskflow().concurrency());
      Json phases = Json::array();
      for (const v1::Phase& phase : spec.taskflow().phases()) phases.push_back(EncodePhase(phase));
      out["phases"] = std::move(phases);
      break;
    }
    case v1::FlowSpec::kPlanAndExecute:
      out["planAndExecute"] = EncodePlanExecute(spec.plan_and_execute());
      break;
    case v1::FlowSpec::kSupervisor:
      out["supervisor"] = EncodeSupervisor(spec.supervisor());
      break;
    case v1::FlowSpec::kBoard:
      out["board"] = EncodeBoard(spec.board());
      break;
    case v1::FlowSpec::KIND_NOT_SET:
      break;
  }
  return out;
}

}  // namespace taskboard::flow
