#include "scheduler/flow/plan_output.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_extract.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {
namespace {

constexpr absl::string_view kPlanShape =
    R"({"tasks": [{"id": string, "goal": string, "deps"?: [string], "priority"?: integer}]})";

// A string field every entry must have, non-empty. Records why when it is
// absent, null or blank; a wrong type is recorded by the reader itself.
std::optional<std::string> RequiredString(JsonReader& reader, absl::string_view key,
                                          absl::string_view why, FlowErrorList* errors) {
  std::optional<std::string> value = reader.String(key);
  if (value.has_value() && !absl::StripAsciiWhitespace(*value).empty()) return value;
  const Json* raw = reader.Raw(key);
  if (raw == nullptr || raw->is_null() || raw->is_string()) {
    errors->Add(
        reader.FieldPath(key),
        absl::StrCat(raw != nullptr && raw->is_string() ? "is empty" : "is missing", "; ", why));
  }
  return std::nullopt;
}

// Reads a task list, recording every problem in `errors` under
// `tasks[i]...`. With `closed`, the list is a whole plan: deps must name its
// tasks and must not form a cycle.
std::vector<PlannedTask> ReadTasks(const Json& list, bool closed, FlowErrorList* errors) {
  std::vector<PlannedTask> tasks;
  if (!list.is_array()) {
    errors->Add("tasks", absl::StrCat("must be an array of tasks (got ", DescribeJsonType(list),
                                      "); expected ", kPlanShape));
    return tasks;
  }
  absl::flat_hash_map<std::string, size_t> index_of_id;
  for (size_t i = 0; i < list.size(); ++i) {
    JsonReader reader(list[i], IndexPath("tasks", i), errors);
    if (!reader.valid()) continue;
    std::optional<std::string> id =
        RequiredString(reader, "id", "every task needs a non-empty string id", errors);
    std::optional<std::string> goal = RequiredString(
        reader, "goal",
        id.has_value() ? absl::StrCat("task '", *id, "' needs a non-empty string goal")
                       : "every task needs a non-empty string goal",
        errors);
    std::vector<std::string> deps;
    for (std::string& dep : reader.StringList("deps")) {
      if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(std::move(dep));
    }
    std::optional<int64_t> priority =
        reader.Int("priority", std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (!id.has_value()) continue;
    auto [first, inserted] = index_of_id.emplace(*id, i);
    if (!inserted) {
      errors->Add(reader.FieldPath("id"), absl::StrCat("duplicate id '", *id, "' (also tasks[",
                                                       first->second, "]); ids must be unique"));
      continue;
    }
    tasks.push_back(PlannedTask{*std::move(id), goal.value_or(""), std::move(deps),
                                static_cast<int>(priority.value_or(0))});
  }
  if (!closed) return tasks;

  std::vector<absl::string_view> ids;
  for (const PlannedTask& task : tasks) ids.push_back(task.id);
  for (const PlannedTask& task : tasks) {
    for (const std::string& dep : task.deps) {
      if (index_of_id.contains(dep)) continue;
      errors->Add(JoinPath(IndexPath("tasks", index_of_id[task.id]), "deps"),
                  absl::StrCat(
                      "task '", task.id, "' depends on '", dep,
                      "', which is not a task of this plan (ids: ", absl::StrJoin(ids, ", "), ")"));
    }
  }
  if (errors->empty()) {
    std::vector<DagNode> nodes;
    for (const PlannedTask& task : tasks) nodes.push_back({task.id, task.deps});
    if (std::optional<std::vector<std::string>> cycle = FindCycle(nodes)) {
      errors->Add("tasks", absl::StrCat("dependency cycle: ", FormatCycle(*cycle),
                                        "; remove one of these deps so the plan can run"));
    }
  }
  return tasks;
}

// Parses planner or replanner output (see ParsePlan).
absl::StatusOr<std::vector<PlannedTask>> ParseTaskOutput(absl::string_view output, bool closed) {
  FlowErrorList errors;
  std::vector<PlannedTask> tasks;
  std::optional<Json> json = ExtractJson(output);
  if (!json.has_value()) {
    errors.Add("", absl::StrCat(NoJsonInOutput(output), "; expected ", kPlanShape));
  } else if (json->is_array()) {
    tasks = ReadTasks(*json, closed, &errors);
  } else if (json->is_object() && json->contains("tasks")) {
    tasks = ReadTasks((*json)["tasks"], closed, &errors);
  } else {
    errors.Add("", absl::StrCat("expected ", kPlanShape, " or an array of tasks (got ",
                                DescribeJsonType(*json),
                                json->is_object() ? " without 'tasks'" : "", ")"));
  }
  if (!errors.empty()) return errors.ToStatus("plan is invalid");
  return tasks;
}

// "true"/"false" as a boolean or a string (some agents quote it).
std::optional<bool> ReadSuccess(const Json& object) {
  auto it = object.find("success");
  if (it == object.end()) return std::nullopt;
  if (it->is_boolean()) return it->get<bool>();
  if (!it->is_string()) return std::nullopt;
  const std::string text =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(it->get_ref<const std::string&>()));
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::vector<StepSource> ReadSources(const Json& object) {
  std::vector<StepSource> sources;
  auto list = object.find("sources");
  if (list == object.end() || !list->is_array()) return sources;
  for (const Json& entry : *list) {
    if (entry.is_string()) {
      sources.push_back({"", entry.get<std::string>()});
      continue;
    }
    if (!entry.is_object()) continue;
    auto url = entry.find("url");
    if (url == entry.end() || !url->is_string()) continue;
    auto title = entry.find("title");
    sources.push_back({title != entry.end() && title->is_string() ? title->get<std::string>() : "",
                       url->get<std::string>()});
  }
  return sources;
}

constexpr absl::string_view kTaskSchema = R"({
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "Unique short id, e.g. \"fetch-sources\"."},
    "goal": {"type": "string", "description": "What the task must achieve, self-contained."},
    "deps": {
      "type": ["array", "null"],
      "items": {"type": "string"},
      "description": "Ids of the tasks that must complete first."
    },
    "priority": {
      "type": ["integer", "null"],
      "description": "Higher runs earlier among tasks that are ready."
    }
  },
  "required": ["id", "goal", "deps", "priority"],
  "additionalProperties": false
})";

}  // namespace

absl::StatusOr<std::vector<PlannedTask>> ParsePlan(absl::string_view output) {
  return ParseTaskOutput(output, /*closed=*/true);
}

absl::StatusOr<std::vector<PlannedTask>> ParseReplan(absl::string_view output) {
  return ParseTaskOutput(output, /*closed=*/false);
}

std::vector<PlannedTask> RenameReplannedTasks(const absl::flat_hash_set<std::string>& existing_ids,
                                              std::vector<PlannedTask> tasks, int replan_number) {
  // Every id a renamed task must avoid: the plan's and the new tasks' own.
  absl::flat_hash_set<std::string> taken = existing_ids;
  for (const PlannedTask& task : tasks) taken.insert(task.id);
  absl::flat_hash_map<std::string, std::string> new_ids;
  for (PlannedTask& task : tasks) {
    if (!existing_ids.contains(task.id)) continue;
    const std::string base = absl::StrCat(task.id, "-replan-", replan_number);
    std::string new_id = base;
    for (int suffix = 2; taken.contains(new_id); ++suffix) {
      new_id = absl::StrCat(base, "-", suffix);
    }
    taken.insert(new_id);
    new_ids.emplace(task.id, new_id);
    task.id = std::move(new_id);
  }
  for (PlannedTask& task : tasks) {
    for (std::string& dep : task.deps) {
      auto renamed = new_ids.find(dep);
      if (renamed != new_ids.end()) dep = renamed->second;
    }
  }
  return tasks;
}

StepOutcome ParseStepOutput(absl::string_view output) {
  StepOutcome outcome;
  std::optional<Json> json = ExtractJson(output);
  std::optional<bool> success;
  bool has_summary = false;
  if (json.has_value() && json->is_object()) {
    auto summary = json->find("summary");
    has_summary = summary != json->end() && summary->is_string();
    success = ReadSuccess(*json);
  }
  if (!has_summary && !success.has_value()) {
    outcome.summary = std::string(output);
    return outcome;
  }
  outcome.summary = has_summary ? (*json)["summary"].get<std::string>() : std::string(output);
  outcome.success = success.value_or(true);
  auto reason = json->find("reason");
  if (reason != json->end() && reason->is_string()) outcome.reason = reason->get<std::string>();
  outcome.sources = ReadSources(*json);
  return outcome;
}

absl::StatusOr<EvaluatorDecision> ParseEvaluatorDecision(absl::string_view output) {
  constexpr absl::string_view kAllowed = "allowed: continue, replan, complete";
  FlowErrorList errors;
  std::optional<Json> json = ExtractJson(output);
  if (!json.has_value()) {
    errors.Add("", absl::StrCat(NoJsonInOutput(output),
                                "; expected {\"decision\": \"continue\" | "
                                "\"replan\" | \"complete\", \"reasoning\": string, \"tasks\"?: "
                                "[...]}"));
    return errors.ToStatus("evaluator decision is invalid");
  }
  if (!json->is_object()) {
    errors.Add("", absl::StrCat("expected an object {decision, reasoning, tasks?} (got ",
                                DescribeJsonType(*json), ")"));
    return errors.ToStatus("evaluator decision is invalid");
  }
  JsonReader reader(*json, "", &errors);
  EvaluatorDecision result;
  std::optional<std::string> decision = reader.String("decision");
  if (decision.has_value()) {
    const std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*decision));
    if (name == "continue") {
      result.decision = EvaluatorDecisionKind::kContinue;
    } else if (name == "replan") {
      result.decision = EvaluatorDecisionKind::kReplan;
    } else if (name == "complete") {
      result.decision = EvaluatorDecisionKind::kComplete;
    } else {
      errors.Add("decision", absl::StrCat("unknown decision '", *decision, "' (", kAllowed, ")"));
    }
  } else {
    const Json* raw = reader.Raw("decision");
    if (raw == nullptr || raw->is_null()) {
      errors.Add("decision", absl::StrCat("is missing (", kAllowed, ")"));
    }
  }
  result.reasoning = reader.String("reasoning").value_or("");
  if (errors.empty() && result.decision == EvaluatorDecisionKind::kReplan) {
    const Json* tasks = reader.Raw("tasks");
    if (tasks != nullptr && !tasks->is_null() && !(tasks->is_array() && tasks->empty())) {
      result.tasks = ReadTasks(*tasks, /*closed=*/false, &errors);
    }
  }
  if (!errors.empty()) return errors.ToStatus("evaluator decision is invalid");
  return result;
}

absl::string_view EvaluatorDecisionName(EvaluatorDecisionKind kind) {
  switch (kind) {
    case EvaluatorDecisionKind::kContinue:
      return "continue";
    case EvaluatorDecisionKind::kReplan:
      return "replan";
    case EvaluatorDecisionKind::kComplete:
      return "complete";
  }
  return "continue";
}

absl::string_view PlanOutputSchema() {
  static const std::string* const kSchema = new std::string(
      absl::StrCat(R"({"type": "object", "properties": {"tasks": {"type": "array", "items": )",
                   kTaskSchema, R"(}}, "required": ["tasks"], "additionalProperties": false})"));
  return *kSchema;
}

absl::string_view StepOutputSchema() {
  return R"({
  "type": "object",
  "properties": {
    "summary": {"type": "string", "description": "What the step found or did."},
    "success": {"type": "boolean", "description": "False when the step could not be done."},
    "reason": {"type": ["string", "null"], "description": "Why the step failed."},
    "sources": {
      "type": ["array", "null"],
      "items": {
        "type": "object",
        "properties": {
          "title": {"type": ["string", "null"]},
          "url": {"type": "string"}
        },
        "required": ["title", "url"],
        "additionalProperties": false
      }
    }
  },
  "required": ["summary", "success", "reason", "sources"],
  "additionalProperties": false
})";
}

absl::string_view EvaluatorOutputSchema() {
  static const std::string* const kSchema = new std::string(absl::StrCat(
      R"({
  "type": "object",
  "properties": {
    "decision": {"type": "string", "enum": ["continue", "replan", "complete"]},
    "reasoning": {"type": "string"},
    "tasks": {
      "type": ["array", "null"],
      "description": "For a replan: the new tasks, which then need no replanner.",
      "items": )",
      kTaskSchema, R"(
    }
  },
  "required": ["decision", "reasoning", "tasks"],
  "additionalProperties": false
})"));
  return *kSchema;
}

}  // namespace taskboard::flow
