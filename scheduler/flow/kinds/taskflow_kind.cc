#include "scheduler/flow/kinds/taskflow_kind.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/task_cwd.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/approval_routes.h"
#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/json_write.h"
#include "scheduler/flow/kinds/plan_execute_kind.h"
#include "scheduler/flow/kinds/supervisor_kind.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/flow/phase_pattern.h"
#include "scheduler/flow/template_check.h"

namespace taskboard::flow {
namespace {

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

void EncodeTaskflow(const v1::FlowSpec& spec, Json& out) {
  SetInt(out, "concurrency", spec.taskflow().concurrency());
  Json phases = Json::array();
  for (const v1::Phase& phase : spec.taskflow().phases()) phases.push_back(EncodePhase(phase));
  out["phases"] = std::move(phases);
}

void ValidatePhasePattern(const v1::Phase& phase, const std::string& path,
                          const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  if (phase.type() != v1::PHASE_TYPE_AGENT && phase.type() != v1::PHASE_TYPE_MAP) {
    errors->Add(JoinPath(path, phase.has_plan() ? "plan" : "supervise"),
                absl::StrCat("a ", PhaseTypeName(phase.type()),
                             " phase cannot be carried out by a pattern; use `type: plan` / "
                             "`type: supervise`, or a `plan` / `supervise` block on a map phase"));
    return;
  }
  if (phase.has_plan()) {
    ValidatePlanExecute(PhasePlan(phase), JoinPath(path, "plan"), /*in_phase=*/true, args, errors);
  } else {
    ValidateSupervisor(PhaseSupervise(phase), JoinPath(path, "supervise"), /*nested=*/true, args,
                       errors);
  }
}

void ValidateTaskflow(const v1::FlowSpec& spec, const absl::flat_hash_set<std::string>& args,
                      FlowErrorList* errors) {
  const v1::TaskflowSpec& flow = spec.taskflow();
  if (errors->IsBroken("phases")) return;
  if (flow.phases().empty()) {
    errors->Add("phases",
                "flow has no phases: add `phases`, or use the `task`, `tasks` or "
                "`chain` shorthand");
    return;
  }
  const absl::flat_hash_set<std::string> ids = CheckIds(flow.phases(), "phases", "phase", errors);

  const std::vector<DagNode> nodes = PhaseNodes(flow);
  std::vector<int> finals;
  for (int i = 0; i < flow.phases_size(); ++i) {
    const v1::Phase& phase = flow.phases(i);
    const std::string path = IndexPath("phases", i);
    if (errors->IsBroken(path)) continue;
    if (phase.is_final()) finals.push_back(i);

    const v1::PhaseType type = phase.type();
    const absl::string_view type_name = PhaseTypeName(type);
    // An approval gate asks its `task`, unless its block has a `prompt`.
    const bool uses_task = type != v1::PHASE_TYPE_PARALLEL && type != v1::PHASE_TYPE_APPROVAL &&
                           phase.approval().prompt().empty();
    if (uses_task && phase.task().empty()) {
      AddMissing(
          errors, JoinPath(path, "task"),
          absl::StrCat(type_name[0] == 'a' ? "an " : "a ", type_name, " phase needs a task"));
    }
    ValidateApprovalPhase(phase, path, errors);
    if (type == v1::PHASE_TYPE_PARALLEL && !phase.task().empty()) {
      errors->Add(JoinPath(path, "task"),
                  "parallel phases take their tasks from `branches`, not `task`");
    }
    if (IsPatternPhase(phase)) ValidatePhasePattern(phase, path, args, errors);
    if (type == v1::PHASE_TYPE_MAP) {
      if (phase.over().empty()) {
        errors->Add(JoinPath(path, "over"),
                    "a map phase needs `over` (e.g. \"{steps.discover.json}\")");
      }
      if (!phase.item_var().empty() && !IsPlaceholderSegment(phase.item_var())) {
        errors->Add(JoinPath(path, "as"),
                    absl::StrCat("'", phase.item_var(),
                                 "' is not a valid item name (letters, digits, '_' and '-')"));
      }
    } else {
      if (!phase.over().empty()) {
        errors->Add(JoinPath(path, "over"), "`over` only applies to map phases");
      }
      if (!phase.item_var().empty()) {
        errors->Add(JoinPath(path, "as"), "`as` only applies to map phases");
      }
    }
    if (type == v1::PHASE_TYPE_PARALLEL) {
      if (phase.branches().empty()) {
        errors->Add(JoinPath(path, "branches"),
                    "a parallel phase needs a non-empty `branches` array of {task, agent?}");
      }
      for (int b = 0; b < phase.branches_size(); ++b) {
        const std::string branch_path = IndexPath(JoinPath(path, "branches"), b);
        if (!errors->IsBroken(branch_path) && phase.branches(b).task().empty()) {
          AddMissing(errors, JoinPath(branch_path, "task"), "a branch needs a task");
        }
      }
    } else if (!phase.branches().empty()) {
      errors->Add(JoinPath(path, "branches"), "`branches` only applies to parallel phases");
    }
    if (type == v1::PHASE_TYPE_REDUCE && phase.from_phases().empty()) {
      errors->Add(JoinPath(path, "from"),
                  "a reduce phase needs a non-empty `from` list of the phases it combines");
    }
    if (type != v1::PHASE_TYPE_REDUCE && !phase.from_phases().empty()) {
      errors->Add(JoinPath(path, "from"), "`from` only applies to reduce phases");
    }
    CheckDepList(phase.depends_on(), JoinPath(path, "dependsOn"), ids, "phase", errors);
    CheckDepList(phase.from_phases(), JoinPath(path, "from"), ids, "phase", errors);
    if (phase.concurrency() < 0) errors->Add(JoinPath(path, "concurrency"), "must be at least 1");
    if (phase.has_retries() && phase.retries() < 0) {
      errors->Add(JoinPath(path, "retries"), "must not be negative");
    }
    if (phase.timeout_seconds() < 0) {
      errors->Add(JoinPath(path, "timeoutSeconds"), "must not be negative");
    }
    // A flow must not choose where on the worker's disk its agents work.
    if (absl::Status cwd = CheckTaskCwd(phase.cwd()); !cwd.ok()) {
      errors->Add(JoinPath(path, "cwd"), std::string(cwd.message()));
    }
  }
  if (finals.size() > 1) {
    std::vector<std::string> names;
    for (int i : finals) names.push_back(absl::StrCat("'", flow.phases(i).id(), "'"));
    errors->Add(JoinPath(IndexPath("phases", finals[1]), "final"),
                absl::StrCat("more than one final phase (", absl::StrJoin(names, ", "),
                             "); mark exactly one, or none to use the last phase"));
  }
  CheckCycle(nodes, "phases", "dependsOn", errors);
  ValidateApprovalRoutes(flow, errors);

  absl::flat_hash_map<std::string, std::vector<std::string>> forms;
  for (const v1::Phase& phase : flow.phases()) {
    if (!phase.has_approval()) continue;
    std::vector<std::string>& fields = forms[phase.id()];
    for (const v1::ApprovalField& field : phase.approval().form()) fields.push_back(field.name());
  }
  // Placeholders, once the graph is known.
  const DagIndex graph(nodes);
  for (int i = 0; i < flow.phases_size(); ++i) {
    const v1::Phase& phase = flow.phases(i);
    const std::string path = IndexPath("phases", i);
    if (errors->IsBroken(path)) continue;
    // Only a template that reads a step needs the phase's upstream closure,
    // so a large flow of plain or args-only prompts validates in linear time.
    bool reads_steps = ReadsSteps(phase.task()) || ReadsSteps(phase.over()) ||
                       ReadsSteps(phase.approval().prompt());
    for (const v1::Branch& branch : phase.branches()) {
      reads_steps = reads_steps || ReadsSteps(branch.task());
    }
    TemplateScope scope{
        &args,
        &ids,
        reads_steps ? graph.UpstreamClosure(phase.id()) : absl::flat_hash_set<std::string>(),
        !PhaseDependencies(phase).empty(),
        "",
        "phase",
        &forms};
    if (phase.type() == v1::PHASE_TYPE_MAP) {
      CheckTemplate(phase.over(), JoinPath(path, "over"), scope, errors);
      scope.item_var = phase.item_var().empty() ? "item" : phase.item_var();
    }
    CheckTemplate(phase.task(), JoinPath(path, "task"), scope, errors);
    CheckTemplate(phase.approval().prompt(), JoinPath(ApprovalFieldsPath(phase, path), "prompt"),
                  scope, errors);
    for (int b = 0; b < phase.branches_size(); ++b) {
      CheckTemplate(phase.branches(b).task(),
                    JoinPath(IndexPath(JoinPath(path, "branches"), b), "task"), scope, errors);
    }
  }
}

// A parallel phase's agent matters only to branches without their own.
// An approval phase, or a gate with an approval, runs no agent: a person
// decides.
bool PhaseNeedsAgent(const v1::Phase& phase) {
  if (phase.has_approval()) return false;
  if (phase.type() != v1::PHASE_TYPE_PARALLEL) return true;
  for (const v1::Branch& branch : phase.branches()) {
    if (branch.agent().empty()) return true;
  }
  return false;
}

void VisitTaskflowAgents(v1::FlowSpec* spec, const AgentVisit& visit) {
  for (int i = 0; i < spec->taskflow().phases_size(); ++i) {
    v1::Phase* phase = spec->mutable_taskflow()->mutable_phases(i);
    if (!PhaseNeedsAgent(*phase)) continue;
    const std::string path = absl::StrCat("phases[", i, "]");
    VisitAgent(path + ".agent", phase->mutable_agent(), visit);
    if (phase->has_plan()) {
      VisitPlanExecuteAgents(path + ".plan", phase->mutable_plan(), true, visit);
    }
    if (phase->has_supervise()) {
      VisitSupervisorAgents(path + ".supervise", phase->mutable_supervise(), true, visit);
    }
  }
}

void DecodeTaskflowFlow(JsonReader& root, const Json&, const std::string&, v1::FlowSpec* spec,
                        FlowErrorList* errors) {
  DecodeTaskflow(root, spec, errors);
}

DeclaredBounds TaskflowBounds(const v1::FlowSpec& spec) {
  DeclaredBounds bounds;
  bounds.tasks = spec.taskflow().phases_size();
  for (const v1::Phase& phase : spec.taskflow().phases()) {
    // Only parallel phases have branches; the others fan out at run time.
    if (phase.branches_size() > 0) bounds.parallel.push_back({phase.id(), phase.branches_size()});
  }
  return bounds;
}

std::vector<FlowRole> NoRoles(const v1::FlowSpec&) { return {}; }

v1::TaskflowSpec TaskflowItself(const v1::FlowSpec& spec) { return spec.taskflow(); }

}  // namespace

const FlowKindInfo kTaskflowKind = {
    .spec_case = v1::FlowSpec::kTaskflow,
    .run_kind = v1::FLOW_KIND_TASKFLOW,
    .name = "taskflow",
    .block = "",
    .is_pattern = false,
    .has_phases = true,
    .decode = &DecodeTaskflowFlow,
    .encode = &EncodeTaskflow,
    .validate = &ValidateTaskflow,
    .visit_agents = &VisitTaskflowAgents,
    .declared_bounds = &TaskflowBounds,
    .roles = &NoRoles,
    .as_taskflow = &TaskflowItself,
    .strip_for_active = nullptr,
};

}  // namespace taskboard::flow
