#include "scheduler/flow/plan_output.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
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

// Planners used to other frameworks name a task's deps `dependsOn` or
// `dependencies` (in either case style); `deps` wins when there are several.
absl::string_view DepsKey(const Json& task) {
  for (absl::string_view key : {"deps", "dependsOn", "dependencies"}) {
    if (FindAnySpelling(task, key) != nullptr) return key;
  }
  return "deps";
}

// An integer, or what models write instead: an integer in a string, or a
// level (the supervisor seed's planner declares `priority?: string`).
std::optional<int64_t> ReadPriority(JsonReader& reader, FlowErrorList* errors) {
  constexpr int64_t kMin = std::numeric_limits<int>::min();
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  const Json* raw = reader.Raw("priority");
  if (raw == nullptr || !raw->is_string()) return reader.Int("priority", kMin, kMax);
  const std::string text =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw->get_ref<const std::string&>()));
  if (int64_t number = 0; absl::SimpleAtoi(text, &number) && number >= kMin && number <= kMax) {
    return number;
  }
  static constexpr std::pair<absl::string_view, int64_t> kLevels[] = {
      {"critical", 2}, {"urgent", 2}, {"high", 1}, {"medium", 0},
      {"normal", 0},   {"low", -1},   {"", 0}};
  for (const auto& [level, value] : kLevels) {
    if (text == level) return value;
  }
  errors->Add(reader.FieldPath("priority"),
              absl::StrCat("must be an integer (higher runs earlier) or one of high, medium, low "
                           "(got \"",
                           raw->get_ref<const std::string&>(), "\")"));
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
    JsonReader reader(list[i], IndexPath("tasks", i), errors, KeySpelling::kAnySpelling);
    if (!reader.valid()) continue;
    std::optional<std::string> id =
        RequiredString(reader, "id", "every task needs a non-empty string id", errors);
    std::optional<std::string> goal = RequiredString(
        reader, "goal",
        id.has_value() ? absl::StrCat("task '", *id, "' needs a non-empty string goal")
                       : "every task needs a non-empty string goal",
        errors);
    std::vector<std::string> deps;
    for (std::string& dep : reader.StringList(DepsKey(list[i]))) {
      if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(std::move(dep));
    }
    std::optional<int64_t> priority = ReadPriority(reader, errors);
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
  } else if (const Json* list = FindAnySpelling(*json, "tasks"); list != nullptr) {
    tasks = ReadTasks(*list, closed, &errors);
  } else {
    errors.Add("", absl::StrCat("expected ", kPlanShape, " or an array of tasks (got ",
                                DescribeJsonType(*json),
                                json->is_object() ? " without 'tasks'" : "", ")"));
  }
  if (!errors.empty()) return errors.ToStatus("plan is invalid");
  return tasks;
}

// `success` as a boolean or a quoted one ("false"); nullopt otherwise.
std::optional<bool> ReadSuccess(const Json& object) {
  const Json* success = FindAnySpelling(object, "success");
  return success == nullptr ? std::nullopt : BoolOrQuotedBool(*success);
}

// A string field of a model's object under any spelling of `key`.
std::optional<std::string> StringField(const Json& object, absl::string_view key) {
  const Json* value = FindAnySpelling(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::vector<StepSource> ReadSources(const Json& object) {
  std::vector<StepSource> sources;
  const Json* list = FindAnySpelling(object, "sources");
  if (list == nullptr || !list->is_array()) return sources;
  for (const Json& entry : *list) {
    if (entry.is_string()) {
      sources.push_back({"", entry.get<std::string>()});
      continue;
    }
    std::optional<std::string> url = StringField(entry, "url");
    if (!url.has_value()) continue;
    sources.push_back({StringField(entry, "title").value_or(""), *std::move(url)});
  }
  return sources;
}

// The step envelope `{summary, success, ...}` in a step's output: an object
// with a string `summary` or a boolean `success`; nullopt for anything else.
std::optional<Json> StepEnvelope(absl::string_view output) {
  std::optional<Json> json = ExtractJson(output);
  if (!json.has_value() || !json->is_object()) return std::nullopt;
  if (!StringField(*json, "summary").has_value() && !ReadSuccess(*json).has_value()) {
    return std::nullopt;
  }
  return json;
}

// `text` as a JSON value when all of it is a JSON object or array (fences
// allowed), else as a string: a summary of "42" or "true" stays text.
Json JsonOrText(absl::string_view text) {
  std::optional<Json> json = WholeTextJson(text);
  if (json.has_value() && (json->is_object() || json->is_array())) return *std::move(json);
  return Json(std::string(text));
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
  std::optional<Json> envelope = StepEnvelope(output);
  if (!envelope.has_value()) {
    outcome.summary = std::string(output);
    return outcome;
  }
  outcome.summary = StringField(*envelope, "summary").value_or(std::string(output));
  outcome.success = ReadSuccess(*envelope).value_or(true);
  outcome.reason = StringField(*envelope, "reason").value_or("");
  outcome.sources = ReadSources(*envelope);
  return outcome;
}

Json StepResultJson(absl::string_view output) {
  std::optional<Json> envelope = StepEnvelope(output);
  if (!envelope.has_value()) return JsonOrText(output);
  const Json* summary = FindAnySpelling(*envelope, "summary");
  if (summary != nullptr && (summary->is_object() || summary->is_array())) return *summary;
  return JsonOrText(ParseStepOutput(output).summary);
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
  JsonReader reader(*json, "", &errors, KeySpelling::kAnySpelling);
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
