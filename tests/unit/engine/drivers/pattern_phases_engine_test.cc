// Composition (flow/phase_pattern.h): a taskflow phase carried out by a
// pattern, `type: plan` / `type: supervise` or a `supervise` block on a map
// phase (one child run per item, the item interpolated into its goal),
// chained to the next phase through {steps.ID.output}; and a plan whose step
// executor is a saved flow's spec.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PatternPhasesTest : public ::testing::Test {
 protected:
  // Answers the only assignment sent, which must be `id`; returns it.
  v1::Assignment Answer(const std::string& id, const std::string& output) {
    v1::Assignment a = h_.OnlyAssignment(w_);
    EXPECT_EQ(a.task_id(), id);
    h_.Finish(w_, a, true, output);
    return a;
  }

  EngineHarness h_;
  TestWorker w_;
};

TEST_F(PatternPhasesTest, MapOfSupervisorsThenAPlanPhase_ChainThroughStepOutputs) {
  const std::string run = h_.Submit(R"({"name": "tf", "phases": [
      {"id": "topics", "agent": "lead", "task": "list topics", "output": "json"},
      {"id": "research", "type": "map", "over": "{steps.topics.json}", "agent": "dev",
       "task": "Research {item}", "dependsOn": ["topics"],
       "supervise": {"plannerAgent": "lead", "reviewerAgent": "lead"}},
      {"id": "report", "type": "plan", "agent": "dev", "dependsOn": ["research"],
       "task": "Write a report from {steps.research.output}",
       "plan": {"plannerAgent": "lead"}}]})");
  w_ = h_.Connect("w1", {"lead", "dev"}, 1);
  Answer("topics", R"(["widgets"])");

  // The map item is a child supervisor run with the item in its goal.
  v1::Assignment planner = Answer("planner", R"({"tasks": [{"id": "t", "goal": "T"}]})");
  EXPECT_THAT(planner.prompt(), HasSubstr("Research widgets"));
  const std::string child = planner.run_id();
  EXPECT_NE(child, run);
  Answer("t", "widgets are blue");
  Answer("reviewer-1", R"([{"task_id": "t", "verdict": "accepted"}])");
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(child).parent_run_id(), run);

  // The plan phase's goal carries the map's output.
  v1::Assignment plan = Answer("planner", R"({"tasks": [{"id": "w", "goal": "Write"}]})");
  EXPECT_THAT(plan.prompt(), HasSubstr("widgets are blue"));
  Answer("w", R"({"summary": "the report", "success": true})");
  EXPECT_EQ(h_.Status(run), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(h_.ReadRunView(run).output(), HasSubstr("the report"));
  EXPECT_EQ(h_.ReadRunView(run).child_run_ids_size(), 2);
}

TEST_F(PatternPhasesTest, PlanPhaseFailed_ResumeResumesItsChildRun) {
  const std::string run = h_.Submit(R"({"name": "tf", "phases": [
      {"id": "report", "type": "plan", "agent": "dev", "task": "Write a report",
       "plan": {"plannerAgent": "lead", "evaluator": "llm", "evaluatorAgent": "lead"}}]})");
  w_ = h_.Connect("w1", {"lead", "dev"}, 1);
  Answer("planner", R"({"tasks": [{"id": "a", "goal": "A"}]})");
  Answer("a", R"({"summary": "A done", "success": true})");
  v1::Assignment evaluator = h_.OnlyAssignment(w_);
  ASSERT_EQ(evaluator.task_id(), "evaluator-1");
  h_.Finish(w_, evaluator, false, "model down");
  ASSERT_EQ(h_.Status(run), v1::RUN_STATUS_FAILED);
  const std::string child = evaluator.run_id();

  ASSERT_TRUE(h_.Resume(run).ok());
  // Only the evaluator runs again, in the same child run; step a is kept.
  v1::Assignment again = Answer("evaluator-1", R"({"decision": "complete"})");
  EXPECT_EQ(again.run_id(), child);
  EXPECT_EQ(h_.Status(run), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(run).child_run_ids_size(), 1);
}

}  // namespace
}  // namespace taskboard::engine
