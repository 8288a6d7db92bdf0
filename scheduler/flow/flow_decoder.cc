#include "scheduler/flow/flow_decoder.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/flow_options_decoder.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/pattern_approval.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::flow {
namespace {

// Timeouts are seconds; a week bounds typos like 60000 meant as ms.
constexpr int64_t kMaxTimeoutSeconds = 7 * 24 * 3600;

void DecodeArgs(const Json& value, const std::string& path, v1::FlowSpec* spec,
                FlowErrorList* errors) {
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be an object of arg name -> {default?, description?, "
                                   "required?} (got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  for (const auto& [name, arg_json] : value.items()) {
    v1::ArgSpec* arg = spec->add_args();
    arg->set_name(name);
    JsonReader reader(arg_json, JoinPath(path, name), errors);
    if (const Json* def = reader.Raw("default"); def != nullptr) {
      *arg->mutable_default_value() = JsonToProtoValue(*def);
    }
    arg->set_description(reader.String("description").value_or(""));
    arg->set_required(reader.Bool("required").value_or(false));
    reader.RejectUnknownFields();
  }
}

v1::PhaseType DecodePhaseType(const std::string& type, const std::string& path,
                              FlowErrorList* errors) {
  if (auto known = PhaseTypeFromName(type)) return *known;
  errors->Add(
      path,
      absl::StrCat("unknown phase type '", type,
                   "'; use one of agent, parallel, map, gate, reduce, plan, supervise, approval"));
  return v1::PHASE_TYPE_UNSPECIFIED;
}

void DecodeBranches(const Json& value, const std::string& path, v1::Phase* phase,
                    FlowErrorList* errors) {
  if (!value.is_array()) {
    errors->Add(path, absl::StrCat("must be an array of {task, agent?} (got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  for (size_t i = 0; i < value.size(); ++i) {
    v1::Branch* branch = phase->add_branches();
    JsonReader reader(value[i], IndexPath(path, i), errors);
    branch->set_task(reader.String("task").value_or(""));
    branch->set_agent(reader.String("agent").value_or(""));
    reader.RejectUnknownFields();
  }
}

// `tools`: an array of names, or pi's comma-separated string.
void DecodeTools(JsonReader& reader, v1::Phase* phase, FlowErrorList* errors) {
  const Json* tools = reader.Raw("tools");
  if (tools != nullptr && tools->is_string()) {
    for (absl::string_view tool :
         absl::StrSplit(tools->get_ref<const std::string&>(), ',', absl::SkipWhitespace())) {
      phase->add_tools(std::string(absl::StripAsciiWhitespace(tool)));
    }
    return;
  }
  for (std::string& tool : reader.StringList("tools")) phase->add_tools(std::move(tool));
}

void DecodeCacheable(const Json& value, const std::string& path, v1::Phase* phase,
                     FlowErrorList* errors) {
  v1::PhaseCacheOverride* cacheable = phase->mutable_cacheable();
  if (value.is_boolean()) {
    cacheable->set_all_tools(value.get<bool>());
    return;
  }
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be true/false or an object of tool name -> true/false "
                                   "(got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  for (const auto& [tool, enabled] : value.items()) {
    if (!enabled.is_boolean()) {
      errors->Add(JoinPath(path, tool),
                  absl::StrCat("must be true or false (got ", DescribeJsonType(enabled), ")"));
      continue;
    }
    (*cacheable->mutable_tools())[tool] = enabled.get<bool>();
  }
}

void DecodeSupervisor(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors);
void DecodePlanExecute(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors);

// Composition: `type: plan` / `type: supervise` (an agent phase carried out by
// that pattern), or a `plan` / `supervise` block on an agent or map phase.
// The pattern's goal is the phase's `task`.
void DecodePhasePattern(JsonReader& reader, const std::string& type, v1::Phase* phase,
                        FlowErrorList* errors) {
  const Json* plan = reader.Raw("plan");
  const Json* supervise = reader.Raw("supervise");
  const bool has_plan = type == "plan" || (plan != nullptr && !plan->is_null());
  const bool has_supervise = type == "supervise" || (supervise != nullptr && !supervise->is_null());
  if (has_plan && has_supervise) {
    errors->Add(reader.FieldPath(type.empty() ? "plan" : "type"),
                "a phase is carried out by one pattern: use `plan` or `supervise`, not both");
    return;
  }
  if (has_plan) {
    v1::PlanExecuteSpec* spec = phase->mutable_plan();
    if (plan != nullptr && !plan->is_null()) {
      DecodePlanExecute(*plan, reader.FieldPath("plan"), spec, errors);
    }
    if (!spec->goal().empty()) {
      errors->Add(JoinPath(reader.FieldPath("plan"), "goal"),
                  "a plan phase's goal is its `task`; move the text there");
    }
  } else if (has_supervise) {
    v1::SupervisorSpec* spec = phase->mutable_supervise();
    if (supervise != nullptr && !supervise->is_null()) {
      DecodeSupervisor(*supervise, reader.FieldPath("supervise"), spec, errors);
    }
    if (!spec->goal().empty()) {
      errors->Add(JoinPath(reader.FieldPath("supervise"), "goal"),
                  "a supervise phase's goal is its `task`; move the text there");
    }
  }
}

void DecodePhase(const Json& value, const std::string& path, v1::Phase* phase,
                 FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  if (!reader.valid()) return;
  phase->set_id(reader.String("id").value_or(""));
  phase->set_type(v1::PHASE_TYPE_AGENT);
  std::string type = reader.String("type").value_or("");
  if (!type.empty() && type != "plan" && type != "supervise") {
    phase->set_type(DecodePhaseType(type, reader.FieldPath("type"), errors));
  }
  DecodePhasePattern(reader, type, phase, errors);
  phase->set_agent(reader.String("agent").value_or(""));
  phase->set_task(reader.String("task").value_or(""));
  for (std::string& dep : reader.StringList("dependsOn")) phase->add_depends_on(std::move(dep));
  if (const Json* over = reader.Raw("over"); over != nullptr && !over->is_null()) {
    if (LooksLikeUnquotedPlaceholder(*over)) {
      errors->Add(reader.FieldPath("over"),
                  absl::StrCat("must be a placeholder string or a literal array (got a mapping "
                               "with one empty key)",
                               kQuotePlaceholderHint));
    }
    // A literal array/object is kept as JSON text; map resolution parses it.
    phase->set_over(over->is_string() ? over->get<std::string>() : DumpJson(*over));
  }
  phase->set_item_var(reader.String("as").value_or(""));
  if (const Json* branches = reader.Raw("branches"); branches != nullptr && !branches->is_null()) {
    DecodeBranches(*branches, reader.FieldPath("branches"), phase, errors);
  }
  for (std::string& from : reader.StringList("from")) phase->add_from_phases(std::move(from));
  if (auto output = reader.String("output")) {
    if (auto known = OutputFormatFromName(*output)) {
      phase->set_output(*known);
    } else {
      errors->Add(reader.FieldPath("output"),
                  absl::StrCat("must be \"text\" or \"json\" (got \"", *output, "\")"));
    }
  }
  phase->set_model(reader.String("model").value_or(""));
  phase->set_thinking(reader.String("thinking").value_or(""));
  DecodeTools(reader, phase, errors);
  phase->set_cwd(reader.String("cwd").value_or(""));
  phase->set_concurrency(static_cast<int32_t>(reader.Int("concurrency", 1, 10000).value_or(0)));
  phase->set_is_final(reader.Bool("final").value_or(false));
  phase->set_is_optional(reader.Bool("optional").value_or(false));
  if (auto retries = reader.Int("retries", 0, 100))
    phase->set_retries(static_cast<int32_t>(*retries));
  phase->set_timeout_seconds(
      static_cast<int32_t>(reader.Int("timeoutSeconds", 1, kMaxTimeoutSeconds).value_or(0)));
  if (const Json* cacheable = reader.Raw("cacheable");
      cacheable != nullptr && !cacheable->is_null()) {
    DecodeCacheable(*cacheable, reader.FieldPath("cacheable"), phase, errors);
  }
  DecodeApprovalFields(reader, phase, errors);
  reader.RejectUnknownFields();
}

void DecodeTaskflow(JsonReader& root, v1::FlowSpec* spec, FlowErrorList* errors) {
  v1::TaskflowSpec* taskflow = spec->mutable_taskflow();
  taskflow->set_concurrency(static_cast<int32_t>(root.Int("concurrency", 1, 10000).value_or(0)));
  const Json* phases = root.Raw("phases");
  // Missing or empty phases are reported by validation, which sees protos too.
  if (phases == nullptr || phases->is_null()) return;
  if (!phases->is_array()) {
    errors->Add("phases",
                absl::StrCat("must be an array of phases (got ", DescribeJsonType(*phases), ")"));
    errors->MarkBroken("phases");
    return;
  }
  for (size_t i = 0; i < phases->size(); ++i) {
    DecodePhase((*phases)[i], IndexPath("phases", i), taskflow->add_phases(), errors);
  }
}

void DecodeBoardTask(const Json& value, const std::string& path, v1::BoardTask* task,
                     FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  if (!reader.valid()) return;
  task->set_id(reader.String("id").value_or(""));
  task->set_agent(reader.String("agent").value_or(""));
  task->set_task(reader.String("task").value_or(""));
  for (std::string& dep : reader.StringList("deps")) task->add_deps(std::move(dep));
  task->set_priority(static_cast<int32_t>(reader.Int("priority", -1000000, 1000000).value_or(0)));
  task->set_is_optional(reader.Bool("optional").value_or(false));
  if (auto retries = reader.Int("retries", 0, 100))
    task->set_retries(static_cast<int32_t>(*retries));
  task->set_timeout_seconds(
      static_cast<int32_t>(reader.Int("timeoutSeconds", 1, kMaxTimeoutSeconds).value_or(0)));
  reader.RejectUnknownFields();
}

void DecodeBoard(const Json& value, const std::string& path, v1::FlowSpec* spec,
                 FlowErrorList* errors) {
  v1::BoardSpec* board = spec->mutable_board();
  JsonReader reader(value, path, errors);
  board->set_concurrency(static_cast<int32_t>(reader.Int("concurrency", 1, 10000).value_or(0)));
  const Json* tasks = reader.Raw("tasks");
  if (reader.valid() && (tasks == nullptr || !tasks->is_array())) {
    errors->Add(reader.FieldPath("tasks"), "must be an array of {id, task, agent?, deps?}");
  } else if (tasks != nullptr) {
    for (size_t i = 0; i < tasks->size(); ++i) {
      DecodeBoardTask((*tasks)[i], IndexPath(reader.FieldPath("tasks"), i), board->add_tasks(),
                      errors);
    }
  }
  reader.RejectUnknownFields();
}

void DecodeSupervisor(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  spec->set_goal(reader.String("goal").value_or(""));
  spec->set_planner_agent(reader.String("plannerAgent").value_or(""));
  spec->set_worker_agent(reader.String("workerAgent").value_or(""));
  spec->set_reviewer_agent(reader.String("reviewerAgent").value_or(""));
  for (std::string& criterion : reader.StringList("reviewCriteria")) {
    spec->add_review_criteria(std::move(criterion));
  }
  spec->set_max_iterations(static_cast<int32_t>(reader.Int("maxIterations", 1, 100).value_or(0)));
  spec->set_max_concurrency(
      static_cast<int32_t>(reader.Int("maxConcurrency", 1, 10000).value_or(0)));
  spec->set_synthesizer_agent(reader.String("synthesizerAgent").value_or(""));
  if (auto replans = reader.Int("maxReplans", 0, 100)) {
    spec->set_max_replans(static_cast<int32_t>(*replans));
  }
  if (auto mode = reader.String("onSubTaskError")) {
    if (auto known = SubTaskErrorModeFromName(*mode)) {
      spec->set_on_sub_task_error(*known);
    } else {
      errors->Add(reader.FieldPath("onSubTaskError"),
                  absl::StrCat("must be skip, fail or retry (got \"", *mode, "\")"));
    }
  }
  if (const Json* on_escalate = reader.Raw("onEscalate"); on_escalate != nullptr) {
    DecodeOnEscalate(*on_escalate, reader.FieldPath("onEscalate"), spec, errors);
  }
  if (const Json* review = reader.Raw("humanReview"); review != nullptr) {
    DecodeHumanReview(*review, reader.FieldPath("humanReview"), spec, errors);
  }
  reader.RejectUnknownFields();
}

void DecodePlanExecute(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  spec->set_goal(reader.String("goal").value_or(""));
  spec->set_planner_agent(reader.String("plannerAgent").value_or(""));
  spec->set_executor_agent(reader.String("executorAgent").value_or(""));
  if (const Json* nested = reader.Raw("stepExecutor"); nested != nullptr && !nested->is_null()) {
    // {flow: NAME} runs a saved flow per step; anything else is a supervisor.
    if (nested->is_object() && nested->contains("flow")) {
      JsonReader executor(*nested, reader.FieldPath("stepExecutor"), errors);
      spec->set_step_flow(executor.String("flow").value_or(""));
      executor.RejectUnknownFields();
    } else {
      DecodeSupervisor(*nested, reader.FieldPath("stepExecutor"), spec->mutable_step_executor(),
                       errors);
    }
  }
  if (auto evaluator = reader.String("evaluator")) {
    if (auto known = EvaluatorKindFromName(*evaluator)) {
      spec->set_evaluator(*known);
    } else {
      errors->Add(reader.FieldPath("evaluator"),
                  absl::StrCat("must be deterministic or llm (got \"", *evaluator, "\")"));
    }
  }
  spec->set_evaluator_agent(reader.String("evaluatorAgent").value_or(""));
  spec->set_enable_replanning(reader.Bool("enableReplanning").value_or(false));
  spec->set_replanner_agent(reader.String("replannerAgent").value_or(""));
  spec->set_max_iterations(static_cast<int32_t>(reader.Int("maxIterations", 1, 100).value_or(0)));
  spec->set_max_concurrency(
      static_cast<int32_t>(reader.Int("maxConcurrency", 1, 10000).value_or(0)));
  spec->set_synthesizer_agent(reader.String("synthesizerAgent").value_or(""));
  spec->set_execution_instructions(reader.String("executionInstructions").value_or(""));
  spec->set_synthesize_instructions(reader.String("synthesizeInstructions").value_or(""));
  if (const Json* approve = reader.Raw("approvePlan"); approve != nullptr) {
    DecodeApprovePlan(*approve, reader.FieldPath("approvePlan"), spec, errors);
  }
  reader.RejectUnknownFields();
}

// `budget`, `onBudget`, `priority`: how much LLM use a run may cost, what
// happens when a call would cost more, and its rank when model limits are full
// (docs/llm-governance.md). Every kind accepts them.
void DecodeLlmGovernance(JsonReader& root, v1::FlowSpec* spec, FlowErrorList* errors) {
  if (const Json* budget = root.Raw("budget"); budget != nullptr && !budget->is_null()) {
    *spec->mutable_budget() = DecodeRunBudget(*budget, "budget", errors);
  }
  if (const Json* on_budget = root.Raw("onBudget"); on_budget != nullptr && !on_budget->is_null()) {
    spec->set_on_budget(DecodeOnBudget(*on_budget, "onBudget", errors));
  }
  spec->set_priority(
      static_cast<int32_t>(root.Int("priority", -kMaxFlowPriority, kMaxFlowPriority).value_or(0)));
}

// pi-taskflow's `version` (a number, "informational only" there too): checked
// so a typo'd value is reported, then dropped; saved flows have their own
// versions (SaveFlow numbers them).
void DecodeVersion(JsonReader& root, FlowErrorList* errors) {
  const Json* version = root.Raw("version");
  if (version == nullptr || version->is_null() || version->is_number()) return;
  errors->Add("version", absl::StrCat("must be a number, like pi-taskflow's `version: 1` (got ",
                                      DescribeJsonType(*version),
                                      "); it is informational: remove it or write a number"));
}

// The kind named by `kind`, or implied by the block present.
std::string ResolveKind(JsonReader& root, const Json& doc, FlowErrorList* errors) {
  std::string implied = "taskflow";
  int blocks = 0;
  for (const auto& [block, kind] :
       {std::pair{"planAndExecute", "plan_and_execute"}, std::pair{"supervisor", "supervisor"},
        std::pair{"board", "board"}}) {
    if (doc.contains(block)) {
      implied = kind;
      ++blocks;
    }
  }
  if (blocks > 1) {
    errors->Add("", "a flow has one kind: use only one of `planAndExecute`, `supervisor`, `board`");
    // Reported once above; the blocks not decoded are not also "unknown".
    for (const char* block : {"planAndExecute", "supervisor", "board"}) root.Ignore(block);
  }
  std::optional<std::string> kind = root.String("kind");
  if (!kind) return implied;
  if (*kind != "taskflow" && *kind != "plan_and_execute" && *kind != "supervisor" &&
      *kind != "board") {
    errors->Add("kind",
                absl::StrCat("unknown kind '", *kind,
                             "'; use one of taskflow, plan_and_execute, supervisor, board"));
    return implied;
  }
  return *kind;
}

}  // namespace

v1::FlowSpec DecodeFlow(const Json& doc, FlowErrorList* errors) {
  v1::FlowSpec spec;
  if (!doc.is_object()) {
    errors->Add(
        "", absl::StrCat("a flow must be a JSON/YAML object (got ", DescribeJsonType(doc), ")"));
    errors->MarkBroken("");  // nothing else can be checked
    return spec;
  }
  JsonReader root(doc, "", errors);
  spec.set_name(root.String("name").value_or(""));
  spec.set_description(root.String("description").value_or(""));
  if (const Json* args = root.Raw("args"); args != nullptr && !args->is_null()) {
    DecodeArgs(*args, "args", &spec, errors);
  }
  if (const Json* policy = root.Raw("flowPolicy"); policy != nullptr && !policy->is_null()) {
    *spec.mutable_flow_policy() = DecodeFlowPolicy(*policy, "flowPolicy", errors);
  }
  if (const Json* cache = root.Raw("toolCache"); cache != nullptr && !cache->is_null()) {
    *spec.mutable_tool_cache() = DecodeToolCache(*cache, "toolCache", errors);
  }
  spec.set_max_attempts_per_task(
      static_cast<int32_t>(root.Int("maxAttemptsPerTask", 1, 100).value_or(0)));
  spec.set_timeout_seconds(
      static_cast<int32_t>(root.Int("timeoutSeconds", 1, kMaxTimeoutSeconds).value_or(0)));
  DecodeLlmGovernance(root, &spec, errors);
  // Checked by the validator (common/webhook_url.h), and against the
  // scheduler's --approval-webhook-allow at intake.
  spec.set_approval_webhook(root.String("approvalWebhook").value_or(""));
  // pi-taskflow's agent discovery scope; Taskboard's agents live on workers.
  root.Ignore("agentScope");
  DecodeVersion(root, errors);

  const std::string kind = ResolveKind(root, doc, errors);
  if (kind == "taskflow") {
    DecodeTaskflow(root, &spec, errors);
  } else {
    for (const char* key : {"phases", "concurrency"}) {
      if (doc.contains(key)) {
        errors->Add(key, absl::StrCat("`", key, "` belongs to taskflow flows, not kind ", kind));
        root.Ignore(key);
      }
    }
    const char* block = kind == "plan_and_execute" ? "planAndExecute" : kind.c_str();
    const Json* config = root.Raw(block);
    if (config == nullptr) {
      errors->Add(block, absl::StrCat("kind ", kind, " needs a `", block, "` block"));
      errors->MarkBroken("kind");  // the spec has no kind; validation must not say so again
    } else if (kind == "plan_and_execute") {
      DecodePlanExecute(*config, block, spec.mutable_plan_and_execute(), errors);
    } else if (kind == "supervisor") {
      DecodeSupervisor(*config, block, spec.mutable_supervisor(), errors);
    } else {
      DecodeBoard(*config, block, &spec, errors);
    }
  }
  root.RejectUnknownFields();
  return spec;
}

}  // namespace taskboard::flow
