#ifndef TASKBOARD_SCHEDULER_FLOW_PLAN_OUTPUT_H_
#define TASKBOARD_SCHEDULER_FLOW_PLAN_OUTPUT_H_

// Reads what the agents of a plan-and-execute flow write (docs/semantics.md#plan-and-execute): the
// planner's and replanner's task list, a step's outcome and the LLM
// evaluator's decision. Agents write prose around their JSON, so every parser
// first pulls the JSON out of the text (ExtractJson) and then checks its
// shape; the messages of the errors are written to be shown to the agent on
// its next attempt, so they name the task and say what was expected. Models
// spell keys in camelCase and snake_case alike, so every key is matched
// ignoring case, `_` and `-` (KeySpelling::kAnySpelling): `dependsOn`,
// `depends_on` and `Deps` all work.
//
// The *Schema() functions give JSON Schemas of the same shapes, for a worker
// to send as an LLM's `response_format`. They are written for strict
// structured output: every property is listed as required, optional ones
// accept null, and no other properties are allowed. The parsers accept null
// wherever a field is optional.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

// One task of a plan. `deps` are ids of tasks that must complete first
// (duplicates removed, declared order kept); a higher `priority` runs earlier
// among ready tasks.
struct PlannedTask {
  std::string id;
  std::string goal;
  std::vector<std::string> deps;
  int priority = 0;
};

// Parses planner output: `{"tasks": [{id, goal, deps?, priority?}]}`, or a
// bare array of such tasks. An empty list is a valid plan. Fields other than
// these are ignored (agents add notes). `deps` may also be called
// `dependsOn` or `dependencies`; `priority` may be an integer, an integer in
// a string, or critical/urgent (2), high (1), medium/normal (0), low (-1).
//
// Errors:
//   INVALID_ARGUMENT  no JSON in the output; not that shape; a task without a
//                     non-empty string `id` or `goal`; `deps` not an array of
//                     strings; `priority` none of the above; duplicate ids; a dep
//                     that is not a task of the plan; a dependency cycle
//                     (reported as `a -> b -> a`). Every problem is listed,
//                     each under the path of its task (`tasks[2].deps`), as
//                     FlowErrorList::ToStatus builds it.
absl::StatusOr<std::vector<PlannedTask>> ParsePlan(absl::string_view output);

// Parses replanner output, the same shapes as ParsePlan. The new tasks may
// depend on tasks already in the plan, so unknown deps and cycles are not
// checked here: they can only be judged once the tasks are merged (after
// RenameReplannedTasks).
//
// Errors:
//   INVALID_ARGUMENT  as ParsePlan, minus unknown deps and cycles.
absl::StatusOr<std::vector<PlannedTask>> ParseReplan(absl::string_view output);

// Gives the tasks of a replan ids that do not clash with the plan's: a task
// whose id is in `existing_ids` becomes `<id>-replan-<replan_number>`, or, if
// that is taken too, `<id>-replan-<replan_number>-2`, `-3`, ... A dep on the
// old id of a renamed task is pointed at its new id, since the replanner wrote
// that dep about its own task; deps on other existing ids are kept.
std::vector<PlannedTask> RenameReplannedTasks(const absl::flat_hash_set<std::string>& existing_ids,
                                              std::vector<PlannedTask> tasks, int replan_number);

struct StepSource {
  std::string title;  // Empty when the agent gave none.
  std::string url;
};

// What a step's agent reports. `success == false` fails the step with
// `reason` (which may be empty if the agent gave none).
struct StepOutcome {
  std::string summary;
  bool success = true;
  std::string reason;
  std::vector<StepSource> sources;
};

// Reads a step's output `{summary, success, reason?, sources?[{title?, url}]}`.
// Never fails: an agent may answer in plain text, and that text is its
// summary. The output counts as that JSON when it holds an object with a
// string `summary` or a boolean `success`; `success` defaults to true (the
// strings "true"/"false" are taken too), and an object with `success` but no
// `summary` gets the whole output as its summary so nothing is lost. Anything
// else is `{summary: output, success: true}`. Sources without a string `url`
// are dropped; a bare string source is taken as a url.
StepOutcome ParseStepOutput(absl::string_view output);

// A step's result as JSON, so that a step that produced JSON hands JSON on
// (to the plan's output and to the steps that depend on it):
//   - a step envelope (as ParseStepOutput reads it) whose `summary` is an
//     object or array, or a string that is one as a whole (```json fences
//     allowed): that value;
//   - output that is as a whole a JSON object or array without the envelope:
//     that value;
//   - anything else: the summary (ParseStepOutput) as a JSON string.
// Scalars stay strings: a summary of "42" is the text "42". Never fails.
Json StepResultJson(absl::string_view output);

enum class EvaluatorDecisionKind { kContinue, kReplan, kComplete };

// The LLM evaluator's decision after a drain. `tasks` holds inline tasks of a
// replan, which then skips the replanner; it is nullopt when the evaluator
// gave none (absent, null or empty) or the decision is not a replan.
struct EvaluatorDecision {
  EvaluatorDecisionKind decision = EvaluatorDecisionKind::kContinue;
  std::string reasoning;
  std::optional<std::vector<PlannedTask>> tasks;
};

// Parses `{decision: continue|replan|complete, reasoning, tasks?}`; the
// decision is case-insensitive. Inline tasks are checked as ParseReplan checks
// them, and only for a replan: a bad task list must not block a `complete`.
//
// Errors:
//   INVALID_ARGUMENT  no JSON; not an object; `decision` missing or not one of
//                     continue, replan, complete; `reasoning` not a string;
//                     bad inline tasks (as ParseReplan).
absl::StatusOr<EvaluatorDecision> ParseEvaluatorDecision(absl::string_view output);

// "continue" | "replan" | "complete".
absl::string_view EvaluatorDecisionName(EvaluatorDecisionKind kind);

// JSON Schemas (text) of the planner's, a step's and the evaluator's output.
absl::string_view PlanOutputSchema();
absl::string_view StepOutputSchema();
absl::string_view EvaluatorOutputSchema();

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_PLAN_OUTPUT_H_
