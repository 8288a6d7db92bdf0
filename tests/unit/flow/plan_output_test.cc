#include "scheduler/flow/plan_output.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

auto TaskIs(const std::string& id, const std::vector<std::string>& deps) {
  return AllOf(Field(&PlannedTask::id, id), Field(&PlannedTask::deps, deps));
}

std::vector<std::string> Ids(const std::vector<PlannedTask>& tasks) {
  std::vector<std::string> ids;
  for (const PlannedTask& task : tasks) ids.push_back(task.id);
  return ids;
}

TEST(ParsePlan, EmptyTaskList_IsValid) {
  absl::StatusOr<std::vector<PlannedTask>> plan = ParsePlan(R"({"tasks": []})");
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(*plan, IsEmpty());
}

TEST(ParsePlan, FencedBlockWithProse_ReadsEveryField) {
  absl::StatusOr<std::vector<PlannedTask>> plan = ParsePlan(R"(Here is the plan:
```json
{"tasks": [
  {"id": "search", "goal": "Find sources", "priority": 2},
  {"id": "write", "goal": "Write the report", "deps": ["search", "search"], "note": "x"}
]}
```
Let me know if it needs changes.)");
  ASSERT_THAT(plan, IsOk());
  ASSERT_EQ(plan->size(), 2);
  EXPECT_EQ((*plan)[0].id, "search");
  EXPECT_EQ((*plan)[0].goal, "Find sources");
  EXPECT_THAT((*plan)[0].deps, IsEmpty());
  EXPECT_EQ((*plan)[0].priority, 2);
  EXPECT_EQ((*plan)[1].goal, "Write the report");
  EXPECT_THAT((*plan)[1].deps, ElementsAre("search"));  // duplicate dep dropped
  EXPECT_EQ((*plan)[1].priority, 0);
}

TEST(ParsePlan, BareArray_IsAPlan) {
  absl::StatusOr<std::vector<PlannedTask>> plan =
      ParsePlan(R"([{"id": "a", "goal": "A"}, {"id": "b", "goal": "B", "deps": ["a"]}])");
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(*plan, ElementsAre(TaskIs("a", {}), TaskIs("b", {"a"})));
}

TEST(ParsePlan, NullOptionalFields_AreDefaults) {
  absl::StatusOr<std::vector<PlannedTask>> plan =
      ParsePlan(R"({"tasks": [{"id": "a", "goal": "A", "deps": null, "priority": null}]})");
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(*plan, ElementsAre(TaskIs("a", {})));
}

TEST(ParsePlan, NoJson_Fails) {
  EXPECT_THAT(ParsePlan("I could not come up with a plan."),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("plan is invalid"), HasSubstr("no JSON"),
                             HasSubstr(R"({"tasks": [)"))));
}

TEST(ParsePlan, ObjectWithoutTasks_Fails) {
  EXPECT_THAT(
      ParsePlan(R"({"steps": []})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(got an object without 'tasks')")));
}

TEST(ParsePlan, TasksNotAnArray_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": "do it"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks: must be an array of tasks (got a string)")));
}

TEST(ParsePlan, TaskNotAnObject_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": ["search"]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0]: must be an object (got a string)")));
}

TEST(ParsePlan, MissingId_Fails) {
  EXPECT_THAT(
      ParsePlan(R"({"tasks": [{"id": "a", "goal": "A"}, {"goal": "B"}]})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("tasks[1].id: is missing; every task needs a non-empty string id")));
}

TEST(ParsePlan, EmptyId_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "  ", "goal": "A"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tasks[0].id: is empty")));
}

TEST(ParsePlan, NonStringId_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": 7, "goal": "A"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0].id: must be a string (got a number)")));
}

TEST(ParsePlan, MissingGoal_FailsNamingTheTask) {
  EXPECT_THAT(
      ParsePlan(R"({"tasks": [{"id": "a"}]})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("tasks[0].goal: is missing; task 'a' needs a non-empty string goal")));
}

TEST(ParsePlan, NonStringDeps_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "a", "goal": "A", "deps": [1]}])"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0].deps[0]: must be a string (got a number)")));
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "a", "goal": "A", "deps": "b"}])"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0].deps: must be an array of strings (got a string)")));
}

TEST(ParsePlan, NonIntegerPriority_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "a", "goal": "A", "priority": 1.5}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0].priority: must be an integer")));
}

TEST(ParsePlan, DuplicateIds_Fails) {
  EXPECT_THAT(
      ParsePlan(R"({"tasks": [{"id": "a", "goal": "A"}, {"id": "b", "goal": "B"},
                              {"id": "a", "goal": "A again"}]})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("tasks[2].id: duplicate id 'a' (also tasks[0]); ids must be unique")));
}

TEST(ParsePlan, UnknownDep_Fails) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "a", "goal": "A"},
                                      {"id": "b", "goal": "B", "deps": ["a", "x"]}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[1].deps: task 'b' depends on 'x', which is not a task of "
                                 "this plan (ids: a, b)")));
}

TEST(ParsePlan, Cycle_FailsWithThePath) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "start", "goal": "S"},
                                      {"id": "a", "goal": "A", "deps": ["start", "b"]},
                                      {"id": "b", "goal": "B", "deps": ["a"]}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks: dependency cycle: a -> b -> a")));
}

TEST(ParsePlan, SelfDependency_IsACycle) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"id": "a", "goal": "A", "deps": ["a"]}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dependency cycle: a -> a")));
}

TEST(ParsePlan, SeveralProblems_AreAllReported) {
  EXPECT_THAT(ParsePlan(R"({"tasks": [{"goal": "A"}, {"id": "b"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("(2 errors)"), HasSubstr("tasks[0].id"),
                             HasSubstr("tasks[1].goal"))));
}

TEST(ParseReplan, DepsOnExistingTasks_AreAllowed) {
  absl::StatusOr<std::vector<PlannedTask>> tasks =
      ParseReplan(R"({"tasks": [{"id": "retry", "goal": "R", "deps": ["search"]}]})");
  ASSERT_THAT(tasks, IsOk());
  EXPECT_THAT(*tasks, ElementsAre(TaskIs("retry", {"search"})));
}

TEST(ParseReplan, DuplicateIds_Fail) {
  EXPECT_THAT(ParseReplan(R"([{"id": "a", "goal": "A"}, {"id": "a", "goal": "B"}])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate id 'a'")));
}

TEST(RenameReplannedTasks, NewIds_AreKept) {
  std::vector<PlannedTask> tasks =
      RenameReplannedTasks({"a"}, {{"b", "B", {"a"}, 0}, {"c", "C", {"b"}, 0}}, 1);
  EXPECT_THAT(tasks, ElementsAre(TaskIs("b", {"a"}), TaskIs("c", {"b"})));
}

TEST(RenameReplannedTasks, ExistingIds_GetReplanSuffixAndDepsFollow) {
  // `a` and `b` exist; the replan redefines `b`, so its dependants follow the new `b` while the
  // dep on the untouched `a` stays.
  std::vector<PlannedTask> tasks =
      RenameReplannedTasks({"a", "b"}, {{"b", "B again", {"a"}, 0}, {"c", "C", {"a", "b"}, 0}}, 2);
  EXPECT_THAT(tasks, ElementsAre(TaskIs("b-replan-2", {"a"}), TaskIs("c", {"a", "b-replan-2"})));
  EXPECT_EQ(tasks[0].goal, "B again");
}

TEST(RenameReplannedTasks, SuffixAlsoTaken_AppendsCounter) {
  std::vector<PlannedTask> tasks = RenameReplannedTasks(
      {"a", "a-replan-1", "a-replan-1-2"}, {{"a", "A", {}, 0}, {"d", "D", {"a"}, 0}}, 1);
  EXPECT_THAT(tasks, ElementsAre(TaskIs("a-replan-1-3", {}), TaskIs("d", {"a-replan-1-3"})));
}

TEST(RenameReplannedTasks, SuffixTakenByAnotherNewTask_AppendsCounter) {
  std::vector<PlannedTask> tasks =
      RenameReplannedTasks({"a"}, {{"a", "A", {}, 0}, {"a-replan-1", "X", {}, 0}}, 1);
  EXPECT_THAT(Ids(tasks), ElementsAre("a-replan-1-2", "a-replan-1"));
}

TEST(ParseStepOutput, JsonSuccess_ReadsSummaryAndSources) {
  StepOutcome outcome = ParseStepOutput(R"(Done.
```json
{"summary": "Found 3 papers", "success": true,
 "sources": [{"title": "Paper", "url": "https://a.example"}, {"url": "https://b.example"},
             "https://c.example", {"title": "no url"}]}
```)");
  EXPECT_EQ(outcome.summary, "Found 3 papers");
  EXPECT_TRUE(outcome.success);
  EXPECT_EQ(outcome.reason, "");
  ASSERT_EQ(outcome.sources.size(), 3);
  EXPECT_EQ(outcome.sources[0].title, "Paper");
  EXPECT_EQ(outcome.sources[0].url, "https://a.example");
  EXPECT_EQ(outcome.sources[1].title, "");
  EXPECT_EQ(outcome.sources[1].url, "https://b.example");
  EXPECT_EQ(outcome.sources[2].url, "https://c.example");
}

TEST(ParseStepOutput, JsonFailure_KeepsReason) {
  StepOutcome outcome = ParseStepOutput(
      R"({"summary": "Could not fetch", "success": false, "reason": "site returned 403"})");
  EXPECT_EQ(outcome.summary, "Could not fetch");
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.reason, "site returned 403");
}

TEST(ParseStepOutput, QuotedSuccessFalse_Fails) {
  EXPECT_FALSE(ParseStepOutput(R"({"summary": "s", "success": "False"})").success);
}

TEST(ParseStepOutput, SummaryWithoutSuccess_DefaultsToSuccess) {
  StepOutcome outcome = ParseStepOutput(R"({"summary": "ok"})");
  EXPECT_EQ(outcome.summary, "ok");
  EXPECT_TRUE(outcome.success);
}

TEST(ParseStepOutput, SuccessWithoutSummary_KeepsWholeOutputAsSummary) {
  const std::string output = R"({"success": false, "reason": "blocked"})";
  StepOutcome outcome = ParseStepOutput(output);
  EXPECT_EQ(outcome.summary, output);
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.reason, "blocked");
}

TEST(ParseStepOutput, PlainText_IsASuccessfulSummary) {
  const std::string output = "The capital of France is Paris [1].";
  StepOutcome outcome = ParseStepOutput(output);
  EXPECT_EQ(outcome.summary, output);
  EXPECT_TRUE(outcome.success);
  EXPECT_THAT(outcome.sources, IsEmpty());
}

TEST(ParseStepOutput, ObjectOfAnotherShape_IsPlainText) {
  const std::string output = R"(Result: {"population": 2100000})";
  StepOutcome outcome = ParseStepOutput(output);
  EXPECT_EQ(outcome.summary, output);
  EXPECT_TRUE(outcome.success);
}

TEST(ParseEvaluatorDecision, EachKind_IsRead) {
  const std::vector<std::pair<std::string, EvaluatorDecisionKind>> cases = {
      {"continue", EvaluatorDecisionKind::kContinue},
      {"Replan", EvaluatorDecisionKind::kReplan},
      {" COMPLETE ", EvaluatorDecisionKind::kComplete}};
  for (const auto& [name, kind] : cases) {
    absl::StatusOr<EvaluatorDecision> decision = ParseEvaluatorDecision(
        absl::StrCat(R"({"decision": ")", name, R"(", "reasoning": "because"})"));
    ASSERT_THAT(decision, IsOk()) << name;
    EXPECT_EQ(decision->decision, kind) << name;
    EXPECT_EQ(decision->reasoning, "because");
    EXPECT_FALSE(decision->tasks.has_value());
  }
}

TEST(ParseEvaluatorDecision, ReplanWithInlineTasks_AllowsDepsOnExistingTasks) {
  absl::StatusOr<EvaluatorDecision> decision = ParseEvaluatorDecision(R"(Thinking...
{"decision": "replan", "reasoning": "search failed",
 "tasks": [{"id": "search-again", "goal": "Search elsewhere", "deps": ["outline"]}]})");
  ASSERT_THAT(decision, IsOk());
  EXPECT_EQ(decision->decision, EvaluatorDecisionKind::kReplan);
  ASSERT_TRUE(decision->tasks.has_value());
  EXPECT_THAT(*decision->tasks, ElementsAre(TaskIs("search-again", {"outline"})));
}

TEST(ParseEvaluatorDecision, ReplanWithEmptyTasks_LeavesItToTheReplanner) {
  absl::StatusOr<EvaluatorDecision> decision =
      ParseEvaluatorDecision(R"({"decision": "replan", "reasoning": "r", "tasks": []})");
  ASSERT_THAT(decision, IsOk());
  EXPECT_FALSE(decision->tasks.has_value());
}

TEST(ParseEvaluatorDecision, BadInlineTasks_Fail) {
  EXPECT_THAT(ParseEvaluatorDecision(R"({"decision": "replan", "reasoning": "r",
                                         "tasks": [{"id": "a", "goal": "A"}, {"id": "a"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("evaluator decision is invalid"), HasSubstr("tasks[1].goal"),
                             HasSubstr("duplicate id 'a'"))));
}

TEST(ParseEvaluatorDecision, TasksOfANonReplan_AreIgnored) {
  absl::StatusOr<EvaluatorDecision> decision =
      ParseEvaluatorDecision(R"({"decision": "complete", "reasoning": "r", "tasks": [{}]})");
  ASSERT_THAT(decision, IsOk());
  EXPECT_FALSE(decision->tasks.has_value());
}

TEST(ParseEvaluatorDecision, UnknownDecision_FailsListingAllowedOnes) {
  EXPECT_THAT(ParseEvaluatorDecision(R"({"decision": "stop", "reasoning": "r"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("decision: unknown decision 'stop' (allowed: continue, replan, "
                                 "complete)")));
}

TEST(ParseEvaluatorDecision, MissingDecision_Fails) {
  EXPECT_THAT(ParseEvaluatorDecision(R"({"reasoning": "r"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("decision: is missing")));
}

TEST(ParseEvaluatorDecision, NoJsonOrNotAnObject_Fails) {
  EXPECT_THAT(ParseEvaluatorDecision("Let's continue."),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no JSON")));
  EXPECT_THAT(ParseEvaluatorDecision(R"(["continue"])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(got an array)")));
}

TEST(EvaluatorDecisionName, NamesEachKind) {
  EXPECT_EQ(EvaluatorDecisionName(EvaluatorDecisionKind::kContinue), "continue");
  EXPECT_EQ(EvaluatorDecisionName(EvaluatorDecisionKind::kReplan), "replan");
  EXPECT_EQ(EvaluatorDecisionName(EvaluatorDecisionKind::kComplete), "complete");
}

TEST(PlanOutputSchemas, AreJsonObjectSchemas) {
  for (absl::string_view schema :
       {PlanOutputSchema(), StepOutputSchema(), EvaluatorOutputSchema()}) {
    absl::StatusOr<Json> parsed = ParseJson(schema);
    ASSERT_THAT(parsed, IsOk()) << schema;
    EXPECT_EQ((*parsed)["type"], "object");
    EXPECT_EQ((*parsed)["additionalProperties"], false);
  }
  absl::StatusOr<Json> plan = ParseJson(PlanOutputSchema());
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ((*plan)["properties"]["tasks"]["items"]["required"],
            Json::parse(R"(["id", "goal", "deps", "priority"])"));
}

}  // namespace
}  // namespace taskboard::flow
