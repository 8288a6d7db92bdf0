// Pattern output parsers read what models write: camelCase or snake_case
// keys, ```json fences and prose around the JSON. Each parser takes every
// spelling and every kind of noise, and otherwise fails saying what it
// expected.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/gate_verdict.h"
#include "scheduler/flow/plan_output.h"
#include "scheduler/flow/review_output.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One review in the spelling of seed 004 (camelCase) and in that of docs/semantics.md#supervisor
// (snake_case).
constexpr const char* kCamelReview = R"({"assessments": [
    {"taskId": "a", "verdict": "accepted", "feedback": "ok", "score": 0.9}],
  "needsReplanning": true, "overallAssessment": "needs another pass"})";
constexpr const char* kSnakeReview = R"({"assessments": [
    {"task_id": "a", "verdict": "accepted", "feedback": "ok", "score": 0.9}],
  "needs_replanning": true, "overall_assessment": "needs another pass"})";

TEST(ParseReview, CamelAndSnakeCaseKeys_ReadTheSame) {
  for (const char* output : {kCamelReview, kSnakeReview}) {
    SCOPED_TRACE(output);
    absl::StatusOr<Review> review = ParseReview(output);
    ASSERT_THAT(review, IsOk());
    ASSERT_EQ(review->assessments.size(), 1);
    EXPECT_EQ(review->assessments[0].task_id, "a");
    EXPECT_EQ(review->assessments[0].verdict, ReviewVerdict::kAccepted);
    EXPECT_DOUBLE_EQ(review->assessments[0].score, 0.9);
    EXPECT_TRUE(review->needs_replanning);
    EXPECT_EQ(review->overall_assessment, "needs another pass");
  }
}

TEST(ParseReview, FencedJsonInProse_IsRead) {
  absl::StatusOr<Review> review =
      ParseReview(std::string("Here is my review.\n```json\n") + kCamelReview +
                  "\n```\nLet me know if you need more.");
  ASSERT_THAT(review, IsOk());
  EXPECT_TRUE(review->needs_replanning);
  EXPECT_EQ(review->assessments.at(0).task_id, "a");
}

TEST(ParseReview, QuotedBooleanAndScore_AreRead) {
  absl::StatusOr<Review> review = ParseReview(
      R"({"assessments": [{"taskId": "a", "verdict": "accepted", "score": "0.5"}],
          "needsReplanning": "false"})");
  ASSERT_THAT(review, IsOk());
  EXPECT_FALSE(review->needs_replanning);
  EXPECT_DOUBLE_EQ(review->assessments.at(0).score, 0.5);
}

TEST(ParseReview, NeedsReplanningNotABoolean_Fails) {
  EXPECT_THAT(ParseReview(R"({"assessments": [], "needsReplanning": "maybe"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs_replanning: must be true or false (got a string)")));
}

TEST(ParseReview, MissingTaskId_SaysBothSpellings) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"verdict": "accepted"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("`task_id` (or `taskId`)")));
}

TEST(ParseReview, TrailingComma_FailsSayingWhatIsWrong) {
  EXPECT_THAT(ParseReview("```json\n{\"assessments\": [{\"taskId\": \"a\", \"verdict\": "
                          "\"accepted\",}]}\n```"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("the ```json block is not valid"),
                             HasSubstr("no trailing commas"), HasSubstr("expected {"))));
}

TEST(ParsePlan, DependencySpellings_AreDeps) {
  for (const char* key : {"deps", "dependsOn", "depends_on", "dependencies"}) {
    SCOPED_TRACE(key);
    absl::StatusOr<std::vector<PlannedTask>> plan = ParsePlan(
        std::string(R"({"tasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g", ")") + key +
        R"(": ["a"]}]})");
    ASSERT_THAT(plan, IsOk());
    EXPECT_THAT(plan->at(1).deps, ElementsAre("a"));
  }
}

TEST(ParsePlan, CapitalizedKeysInFencedProse_AreRead) {
  absl::StatusOr<std::vector<PlannedTask>> plan = ParsePlan(
      "Plan:\n```json\n{\"Tasks\": [{\"ID\": \"a\", \"Goal\": \"g\", \"Priority\": 2}]}\n```");
  ASSERT_THAT(plan, IsOk());
  ASSERT_EQ(plan->size(), 1);
  EXPECT_EQ(plan->at(0).id, "a");
  EXPECT_EQ(plan->at(0).priority, 2);
}

TEST(ParsePlan, StringPriorities_AreLevelsOrNumbers) {
  absl::StatusOr<std::vector<PlannedTask>> plan = ParsePlan(
      R"([{"id": "a", "goal": "g", "priority": "high"}, {"id": "b", "goal": "g", "priority": "LOW"},
          {"id": "c", "goal": "g", "priority": "7"}, {"id": "d", "goal": "g", "priority": "medium"}])");
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->at(0).priority, 1);
  EXPECT_EQ(plan->at(1).priority, -1);
  EXPECT_EQ(plan->at(2).priority, 7);
  EXPECT_EQ(plan->at(3).priority, 0);
}

TEST(ParsePlan, UnknownPriorityWord_FailsListingLevels) {
  EXPECT_THAT(ParsePlan(R"([{"id": "a", "goal": "g", "priority": "soonish"}])"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tasks[0].priority: must be an integer (higher runs earlier) or "
                                 "one of high, medium, low (got \"soonish\")")));
}

TEST(ParsePlan, NoJson_FailsSayingTheShape) {
  EXPECT_THAT(ParsePlan("I will first read the code, then fix it."),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("output holds no JSON"), HasSubstr("expected {\"tasks\""))));
}

TEST(ParseStepOutput, CamelCaseAndCapitalizedKeys_AreRead) {
  StepOutcome outcome = ParseStepOutput(
      R"(Result: {"Summary": "s", "Success": false, "Reason": "blocked",
                  "Sources": [{"Title": "t", "URL": "https://x"}]})");
  EXPECT_EQ(outcome.summary, "s");
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.reason, "blocked");
  ASSERT_EQ(outcome.sources.size(), 1);
  EXPECT_EQ(outcome.sources[0].title, "t");
  EXPECT_EQ(outcome.sources[0].url, "https://x");
}

TEST(ParseEvaluatorDecision, CamelCaseTaskKeys_AreRead) {
  absl::StatusOr<EvaluatorDecision> decision = ParseEvaluatorDecision(
      "```json\n{\"Decision\": \"Replan\", \"Reasoning\": \"r\", "
      "\"Tasks\": [{\"id\": \"x\", \"goal\": \"g\", \"dependsOn\": [\"a\"]}]}\n```");
  ASSERT_THAT(decision, IsOk());
  EXPECT_EQ(decision->decision, EvaluatorDecisionKind::kReplan);
  EXPECT_EQ(decision->reasoning, "r");
  ASSERT_TRUE(decision->tasks.has_value());
  EXPECT_THAT(decision->tasks->at(0).deps, ElementsAre("a"));
}

TEST(ParseEvaluatorDecision, SingleQuotedJson_FailsSayingWhy) {
  EXPECT_THAT(ParseEvaluatorDecision("Decision: {'decision': 'complete'}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("the JSON starting with '{' is not valid"),
                             HasSubstr("double quotes"))));
}

TEST(ParseGateVerdict, CapitalizedKeys_AreRead) {
  GateVerdict verdict = ParseGateVerdict(R"({"Continue": false, "Reason": "no tests"})");
  EXPECT_FALSE(verdict.pass);
  EXPECT_EQ(verdict.reason, "no tests");
}

}  // namespace
}  // namespace taskboard::flow
