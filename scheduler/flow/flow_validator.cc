#include "scheduler/flow/flow_validator.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/task_cwd.h"
#include "common/webhook_url.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/approval_routes.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/flow_options_decoder.h"
#include "scheduler/flow/interpolation.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/pattern_approval.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/flow/phase_pattern.h"

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

// A "missing field" error, unless decoding already reported the field as
// unusable (e.g. `"task": 5`), which would say the same thing twice.
void AddMissing(FlowErrorList* errors, const std::string& path, std::string message) {
  if (!errors->IsBroken(path)) errors->Add(path, std::move(message));
}

// What a template in one phase (or board task) may refer to.
// Whether a template may read a step's output (`{steps.ID...}`): only those
// need the node's upstream closure, which for a long chain is as long as it.
bool ReadsSteps(absl::string_view text) { return absl::StrContains(text, "steps."); }

struct TemplateScope {
  const absl::flat_hash_set<std::string>* arg_names;
  const absl::flat_hash_set<std::string>* node_ids;  // every phase/task id
  absl::flat_hash_set<std::string> upstream;         // transitive deps
  bool has_deps = false;
  std::string item_var;  // non-empty inside a map phase's task
  const char* node_word = "phase";
  // Approval phases (and approval gates) by id -> their form's field names:
  // `{steps.ID.output.NAME}` reads those. Null for boards.
  const absl::flat_hash_map<std::string, std::vector<std::string>>* forms = nullptr;
};

// `{steps.ID.output.NAME...}`: a form value of an approval step. An error
// for `shown` naming what to write instead, or "".
std::string CheckOutputField(const std::vector<std::string>& seg, const std::string& shown,
                             const TemplateScope& scope) {
  const std::vector<std::string>* fields = nullptr;
  if (scope.forms != nullptr) {
    auto form = scope.forms->find(seg[1]);
    if (form != scope.forms->end()) fields = &form->second;
  }
  if (fields != nullptr && seg.size() > 4) {
    return absl::StrCat(shown, ": a form value is text, with no fields of its own; use {steps.",
                        seg[1], ".output.", seg[3], "}");
  }
  // Past NAME, the rest of a JSON path belongs in the suggestion too.
  const std::string name = absl::StrJoin(seg.begin() + 3, seg.end(), ".");
  std::string error = FormFieldError(scope.node_word, seg[1], name, fields);
  return error.empty() ? "" : absl::StrCat(shown, ": ", error);
}

void CheckTemplate(absl::string_view text, const std::string& path, const TemplateScope& scope,
                   FlowErrorList* errors) {
  for (const Placeholder& placeholder : FindPlaceholders(text, scope.item_var)) {
    const std::vector<std::string>& seg = placeholder.segments;
    const std::string shown = absl::StrCat("{", placeholder.text, "}");
    const std::string& root = seg[0];
    if (root == "args") {
      if (seg.size() >= 2 && !scope.arg_names->contains(seg[1])) {
        std::vector<std::string> declared(scope.arg_names->begin(), scope.arg_names->end());
        std::sort(declared.begin(), declared.end());
        errors->Add(
            path,
            absl::StrCat(shown, " refers to undeclared arg '", seg[1], "'",
                         declared.empty()
                             ? std::string("; declare it under `args`")
                             : absl::StrCat(" (declared: ", absl::StrJoin(declared, ", "), ")")));
      }
    } else if (root == "steps") {
      if (seg.size() < 3 || (seg[2] != "output" && seg[2] != "json")) {
        errors->Add(path, absl::StrCat(shown,
                                       " is not a step placeholder; use {steps.ID.output}, "
                                       "{steps.ID.json[.path]} or, for an approval, "
                                       "{steps.ID.output.FIELD}"));
      } else if (!scope.node_ids->contains(seg[1])) {
        errors->Add(path,
                    absl::StrCat(shown, " refers to unknown ", scope.node_word, " '", seg[1], "'"));
      } else if (!scope.upstream.contains(seg[1])) {
        errors->Add(path, absl::StrCat(shown, " refers to ", scope.node_word, " '", seg[1],
                                       "', which is not upstream of this ", scope.node_word,
                                       "; add it to its dependencies"));
      } else if (seg[2] == "output" && seg.size() > 3) {
        if (std::string error = CheckOutputField(seg, shown, scope); !error.empty()) {
          errors->Add(path, std::move(error));
        }
      }
    } else if (root == "previous") {
      if (seg.size() != 2 || seg[1] != "output") {
        errors->Add(path, absl::StrCat(shown, " is not supported; use {previous.output}"));
      } else if (!scope.has_deps) {
        errors->Add(path, absl::StrCat(shown, " needs a dependency, but this ", scope.node_word,
                                       " has none"));
      }
    } else if (scope.item_var.empty()) {
      errors->Add(path, absl::StrCat(shown, " is only available inside a map phase's task"));
    } else if (root != scope.item_var) {
      errors->Add(path, absl::StrCat(shown, " does not name this map's item; it is called '",
                                     scope.item_var, "' (set by `as`)"));
    }
  }
}

std::vector<std::string> BoardDependencies(const v1::BoardTask& task) {
  return {task.deps().begin(), task.deps().end()};
}

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

// Ids: present, well-formed, unique. Returns the set of usable ids.
template <typename Node>
absl::flat_hash_set<std::string> CheckIds(const google::protobuf::RepeatedPtrField<Node>& nodes,
                                          const std::string& list_path, const char* word,
                                          FlowErrorList* errors) {
  absl::flat_hash_set<std::string> ids;
  absl::flat_hash_map<std::string, int> first_index;
  for (int i = 0; i < nodes.size(); ++i) {
    const std::string path = IndexPath(list_path, i);
    if (errors->IsBroken(path)) continue;
    const std::string& id = nodes[i].id();
    if (id.empty()) {
      AddMissing(errors, JoinPath(path, "id"), absl::StrCat("missing ", word, " id"));
    } else if (!IsPlaceholderSegment(id)) {
      errors->Add(JoinPath(path, "id"),
                  absl::StrCat(word, " id '", id,
                               "' may only contain letters, digits, '_' and '-' (ids are used in "
                               "{steps.ID...} placeholders)"));
    } else if (auto [it, inserted] = first_index.try_emplace(id, i); !inserted) {
      errors->Add(JoinPath(path, "id"),
                  absl::StrCat("duplicate ", word, " id '", id, "' (first used at ",
                               IndexPath(list_path, it->second), ")"));
    }
    if (!id.empty()) ids.insert(id);
  }
  return ids;
}

void CheckDepList(const google::protobuf::RepeatedPtrField<std::string>& deps,
                  const std::string& path, const absl::flat_hash_set<std::string>& ids,
                  const char* word, FlowErrorList* errors) {
  for (int j = 0; j < deps.size(); ++j) {
    if (!ids.contains(deps[j])) {
      errors->Add(IndexPath(path, j), absl::StrCat("unknown ", word, " '", deps[j], "'"));
    }
  }
}

void CheckCycle(const std::vector<DagNode>& nodes, const std::string& list_path,
                const char* deps_key, FlowErrorList* errors) {
  std::optional<std::vector<std::string>> cycle = FindCycle(nodes);
  if (!cycle) return;
  int index = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == cycle->front()) index = static_cast<int>(i);
  }
  errors->Add(JoinPath(IndexPath(list_path, index), deps_key),
              absl::StrCat("dependency cycle: ", FormatCycle(*cycle)));
}

void ValidatePhasePattern(const v1::Phase& phase, const std::string& path,
                          const absl::flat_hash_set<std::string>& args, FlowErrorList* errors);

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

void ValidateBoard(const v1::BoardSpec& board, const absl::flat_hash_set<std::string>& args,
                   FlowErrorList* errors) {
  const std::string list_path = "board.tasks";
  if (board.tasks().empty()) {
    errors->Add(list_path, "a board needs at least one task");
    return;
  }
  const absl::flat_hash_set<std::string> ids = CheckIds(board.tasks(), list_path, "task", errors);
  std::vector<DagNode> nodes;
  for (int i = 0; i < board.tasks_size(); ++i) {
    const v1::BoardTask& task = board.tasks(i);
    const std::string path = IndexPath(list_path, i);
    // Broken tasks stay in `nodes` (without id or deps) so that node i is
    // task i, which CheckCycle's path relies on.
    nodes.push_back({task.id(), BoardDependencies(task)});
    if (errors->IsBroken(path)) continue;
    if (task.task().empty())
      AddMissing(errors, JoinPath(path, "task"), "a board task needs a task");
    CheckDepList(task.deps(), JoinPath(path, "deps"), ids, "task", errors);
  }
  CheckCycle(nodes, list_path, "deps", errors);
  const DagIndex graph(nodes);
  for (int i = 0; i < board.tasks_size(); ++i) {
    const v1::BoardTask& task = board.tasks(i);
    const std::string path = IndexPath(list_path, i);
    if (errors->IsBroken(path)) continue;
    TemplateScope scope{&args,
                        &ids,
                        ReadsSteps(task.task()) ? graph.UpstreamClosure(task.id())
                                                : absl::flat_hash_set<std::string>(),
                        !task.deps().empty(),
                        "",
                        "task"};
    CheckTemplate(task.task(), JoinPath(path, "task"), scope, errors);
  }
}

// Pattern goals are interpolated with args only.
void CheckGoal(const std::string& goal, const std::string& path,
               const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  const absl::flat_hash_set<std::string> no_ids;
  TemplateScope scope{&args, &no_ids, {}, false, "", "step"};
  CheckTemplate(goal, path, scope, errors);
}

// Omitted agents are the scheduler's default agent (default_agent.h), so
// only contradictions are errors here.
void ValidateSupervisor(const v1::SupervisorSpec& spec, const std::string& path, bool nested,
                        const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  if (!nested && spec.goal().empty()) {
    errors->Add(JoinPath(path, "goal"), "a supervisor flow needs a goal");
  }
  CheckGoal(spec.goal(), JoinPath(path, "goal"), args, errors);
  ValidateHumanReview(spec, path, errors);
}

// `in_phase`: the block of a `type: plan` phase (phase_pattern.h), whose
// goal is the phase's task.
void ValidatePlanExecute(const v1::PlanExecuteSpec& spec, const std::string& path, bool in_phase,
                         const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  if (!in_phase && spec.goal().empty())
    errors->Add(JoinPath(path, "goal"), "a plan-and-execute flow needs a goal");
  CheckGoal(spec.goal(), JoinPath(path, "goal"), args, errors);
  if (spec.has_step_executor()) {
    if (!spec.executor_agent().empty()) {
      errors->Add(JoinPath(path, "executorAgent"),
                  "use either executorAgent or stepExecutor, not both");
    }
    ValidateSupervisor(spec.step_executor(), JoinPath(path, "stepExecutor"), /*nested=*/true, args,
                       errors);
  } else if (!spec.step_flow().empty() && !spec.executor_agent().empty()) {
    errors->Add(JoinPath(path, "executorAgent"),
                "use either executorAgent or stepExecutor, not both");
  }
  if (spec.has_plan_approval()) {
    ValidatePatternApproval(spec.plan_approval(), JoinPath(path, "approvePlan"), errors);
  }
  // The deterministic evaluator only counts iterations: with it a flow that
  // asks for replanning would silently never replan.
  if (spec.enable_replanning() && spec.evaluator() == v1::EVALUATOR_KIND_DETERMINISTIC) {
    errors->Add(JoinPath(path, "evaluator"),
                "enableReplanning needs the llm evaluator (the deterministic one never replans): "
                "set `evaluator: llm`, or remove `evaluator` (it then defaults to llm), or drop "
                "enableReplanning");
  }
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
  if (!spec.approval_webhook().empty()) {
    if (absl::Status url = CheckWebhookUrl(spec.approval_webhook()); !url.ok()) {
      errors->Add("approvalWebhook", std::string(url.message()));
    }
  }
  switch (spec.kind_case()) {
    case v1::FlowSpec::kTaskflow:
      ValidateTaskflow(spec, args, errors);
      break;
    case v1::FlowSpec::kBoard:
      ValidateBoard(spec.board(), args, errors);
      break;
    case v1::FlowSpec::kPlanAndExecute:
      ValidatePlanExecute(spec.plan_and_execute(), "planAndExecute", /*in_phase=*/false, args,
                          errors);
      break;
    case v1::FlowSpec::kSupervisor:
      ValidateSupervisor(spec.supervisor(), "supervisor", /*nested=*/false, args, errors);
      break;
    case v1::FlowSpec::KIND_NOT_SET:
      if (errors->IsBroken("kind")) break;  // the missing block is already reported
      errors->Add("", "flow has no kind: set taskflow, plan_and_execute, supervisor or board");
      break;
  }
}

}  // namespace taskboard::flow
