// The plan-and-execute driver through the engine and the worker protocol
// (docs/semantics.md#plan-and-execute): planning, dependency-ordered steps, cascade skips,
// `success: false`, invalid plans, concurrency, the synthesizer, and the plan
// JSON output.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Flow(const std::string& extra = "") {
  return R"({"name": "pe", "kind": "plan_and_execute", "maxAttemptsPerTask": 2,
      "planAndExecute": {"goal": "ship it", "plannerAgent": "planner",
                         "executorAgent": "executor")" +
         extra + "}}";
}

std::vector<std::string> Ids(const std::vector<v1::Assignment>& assignments) {
  std::vector<std::string> ids;
  for (const v1::Assignment& a : assignments) ids.push_back(a.task_id());
  return ids;
}

class PlanExecuteTest : public ::testing::Test {
 protected:
  // Submits, connects a worker and finishes the planner with `plan`.
  void Plan(const std::string& plan, const std::string& extra = "") {
    run_ = h_.Submit(Flow(extra));
    w_ = h_.Connect("w1", {"planner", "executor", "synth"}, 8);
    v1::Assignment planner = h_.OnlyAssignment(w_);
    ASSERT_EQ(planner.task_id(), "planner");
    EXPECT_EQ(planner.role(), "planner");
    EXPECT_THAT(planner.prompt(), HasSubstr("Goal: ship it"));
    EXPECT_FALSE(planner.output_schema_json().empty());
    h_.Finish(w_, planner, true, plan);
  }
  v1::Assignment Step(const std::string& id) {
    for (const v1::Assignment& a : pending_) {
      if (a.task_id() == id) return a;
    }
    ADD_FAILURE() << "no assignment for " << id;
    return {};
  }
  std::vector<std::string> Sent() {
    pending_ = h_.TakeAssignments(w_);
    return Ids(pending_);
  }
  Json Output() {
    absl::StatusOr<Json> output = ParseJson(h_.ReadRunView(run_).output());
    EXPECT_TRUE(output.ok()) << h_.ReadRunView(run_).output();
    return output.ok() ? *output : Json();
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::vector<v1::Assignment> pending_;
};

TEST_F(PlanExecuteTest, EmptyPlan_CompletesWithAnEmptyPlan) {
  Plan(R"({"tasks": []})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["total_steps"], 0);
  EXPECT_EQ(h_.ReadRunView(run_).kind(), v1::FLOW_KIND_PLAN_AND_EXECUTE);
}

TEST_F(PlanExecuteTest, LinearDeps_RunInOrderWithDependencyResults) {
  Plan(R"({"tasks": [{"id": "a", "goal": "build"}, {"id": "b", "goal": "test", "deps": ["a"]}]})");
  ASSERT_THAT(Sent(), ElementsAre("a"));
  EXPECT_EQ(Step("a").role(), "step");
  EXPECT_THAT(Step("a").prompt(), HasSubstr("Your step (a): build"));
  h_.Finish(w_, Step("a"), true, R"({"summary": "built v1", "success": true})");

  ASSERT_THAT(Sent(), ElementsAre("b"));
  const v1::Assignment b = Step("b");
  ASSERT_THAT(b.dependency_results(), SizeIs(1));
  EXPECT_EQ(b.dependency_results(0).output(), "built v1");
  EXPECT_THAT(b.prompt(), HasSubstr("- a: built v1"));
  EXPECT_EQ(ParseJson(b.input_json())->at("dependency_results")["a"], "built v1");
  h_.Finish(w_, b, true, "all green");  // plain text counts as a successful summary

  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  Json output = Output();
  EXPECT_EQ(output["status"], "completed");
  EXPECT_EQ(output["completed_steps"], 2);
  EXPECT_EQ(output["tasks"][1]["result"], "all green");
}

TEST_F(PlanExecuteTest, JsonStepResults_StayJsonInDependencyResultsAndThePlan) {
  Plan(R"({"tasks": [{"id": "scan", "goal": "scan"}, {"id": "fix", "goal": "fix",
      "deps": ["scan"]}]})");
  ASSERT_THAT(Sent(), ElementsAre("scan"));
  h_.Finish(w_, Step("scan"), true, R"({"summary": {"files": ["a.cc", "b.cc"]}, "success": true})");
  ASSERT_THAT(Sent(), ElementsAre("fix"));
  const Json input = *ParseJson(Step("fix").input_json());
  // Keyed by the step it came from, and still an object.
  EXPECT_EQ(input["dependency_results"]["scan"]["files"][1], "b.cc");
  EXPECT_EQ(Step("fix").dependency_results(0).id(), "scan");
  h_.Finish(w_, Step("fix"), true, R"({"summary": "fixed", "success": true})");
  ASSERT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["tasks"][0]["result"]["files"][0], "a.cc");
  EXPECT_EQ(Output()["tasks"][1]["result"], "fixed");
}

TEST_F(PlanExecuteTest, FailedStep_CascadeSkipsItsDependentsOnly) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}, {"id": "b", "goal": "B", "deps": ["a"]},
                     {"id": "c", "goal": "C", "deps": ["b"]}, {"id": "d", "goal": "D"}]})",
       R"(, "maxConcurrency": 2)");
  ASSERT_THAT(Sent(), ElementsAre("a", "d"));
  const v1::Assignment d = Step("d");
  h_.Finish(w_, Step("a"), false, "boom");  // attempt 1 of 2, retried after the backoff
  h_.Advance(1'000);
  ASSERT_THAT(Sent(), ElementsAre("a"));
  h_.Finish(w_, Step("a"), false, "boom again");
  h_.Finish(w_, d, true, "D done");
  EXPECT_EQ(h_.ReadTaskView(run_, "b").state(), v1::TASK_STATE_SKIPPED);
  EXPECT_EQ(h_.ReadTaskView(run_, "b").skip_reason(), "dep a failed");
  EXPECT_EQ(h_.ReadTaskView(run_, "c").skip_reason(), "dep b skipped");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);  // d completed
  EXPECT_EQ(Output()["tasks"][0]["status"], "failed");
  EXPECT_EQ(Output()["tasks"][1]["status"], "skipped");
}

TEST_F(PlanExecuteTest, SuccessFalse_FailsTheStepWithItsReason) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})");
  ASSERT_THAT(Sent(), ElementsAre("a"));
  h_.Finish(w_, Step("a"), true, R"({"summary": "", "success": false, "reason": "no data"})");
  ASSERT_THAT(Sent(), ElementsAre("a")) << "retried within maxAttemptsPerTask";
  h_.Finish(w_, Step("a"), true, R"({"success": false, "reason": "still no data"})");
  EXPECT_EQ(h_.ReadTaskView(run_, "a").state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(h_.ReadTaskView(run_, "a").error(), "still no data");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(h_.ReadRunView(run_).error(), "no step completed");
}

TEST_F(PlanExecuteTest, InvalidPlannerJson_RetriedThenAClearFailure) {
  Plan("I would rather not plan");
  std::vector<v1::Assignment> again = h_.TakeAssignments(w_);
  ASSERT_THAT(Ids(again), ElementsAre("planner"));
  EXPECT_EQ(again[0].attempt(), 2);
  // Attempt 2 runs: the refused plan is attempt 1's, why it ended.
  const v1::Task planner = h_.ReadTaskView(run_, "planner");
  EXPECT_EQ(planner.error(), "");
  ASSERT_EQ(planner.earlier_attempts_size(), 1);
  EXPECT_EQ(planner.earlier_attempts(0).ended(), "failed");
  EXPECT_THAT(planner.earlier_attempts(0).detail(), HasSubstr("the plan is invalid"));
  h_.Finish(w_, again[0], true, R"({"tasks": [{"id": "a", "goal": "A", "deps": ["zzz"]}]})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("planner failed: the plan is invalid"));
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("zzz"));
}

TEST_F(PlanExecuteTest, MaxConcurrency_LimitsStepsInFlight) {
  Plan(
      R"({"tasks": [{"id": "a", "goal": "A"}, {"id": "b", "goal": "B"}, {"id": "c", "goal": "C"}]})",
      R"(, "maxConcurrency": 2)");
  EXPECT_THAT(Sent(), ElementsAre("a", "b"));
  h_.Finish(w_, Step("a"), true, "A");
  EXPECT_THAT(Sent(), ElementsAre("c"));
}

TEST_F(PlanExecuteTest, Synthesizer_GetsThePlanAndWritesTheOutput) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})",
       R"(, "synthesizerAgent": "synth", "synthesizeInstructions": "Write the notes.")");
  ASSERT_THAT(Sent(), ElementsAre("a"));
  h_.Finish(w_, Step("a"), true, R"({"summary": "A done"})");
  ASSERT_THAT(Sent(), ElementsAre("synthesizer"));
  const v1::Assignment synthesizer = Step("synthesizer");
  EXPECT_EQ(synthesizer.role(), "synthesizer");
  EXPECT_THAT(synthesizer.prompt(), HasSubstr("Write the notes."));
  EXPECT_THAT(synthesizer.prompt(), HasSubstr(R"("result":"A done")"));
  h_.Finish(w_, synthesizer, true, "# Notes\nA done.");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(run_).output(), "# Notes\nA done.");
}

TEST_F(PlanExecuteTest, StepNamedLikeThePlanner_IsRenamed) {
  Plan(
      R"({"tasks": [{"id": "planner", "goal": "P"}, {"id": "x", "goal": "X", "deps": ["planner"]}]})");
  EXPECT_THAT(Sent(), ElementsAre("planner-step"));
}

TEST_F(PlanExecuteTest, BoardMetaEvents_NameEachPhase) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})");
  Sent();
  h_.Finish(w_, Step("a"), true, "A");
  std::vector<std::string> phases;
  for (const v1::RunEvent& event : h_.Events(run_)) {
    if (event.has_board_meta()) phases.push_back(event.board_meta().phase());
  }
  EXPECT_THAT(phases, ElementsAre("planning", "active", "completed"));
}

constexpr char kLlmEvaluator[] =
    R"(, "evaluator": "llm", "evaluatorAgent": "planner", "enableReplanning": true,
         "maxIterations": 3)";

TEST_F(PlanExecuteTest, LlmEvaluatorComplete_FinishesAfterOneDrain) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})", kLlmEvaluator);
  ASSERT_THAT(Sent(), ElementsAre("a"));
  h_.Finish(w_, Step("a"), true, "A done");
  ASSERT_THAT(Sent(), ElementsAre("evaluator-1"));
  EXPECT_EQ(Step("evaluator-1").role(), "evaluator");
  EXPECT_THAT(Step("evaluator-1").prompt(), HasSubstr(R"("result":"A done")"));
  h_.Finish(w_, Step("evaluator-1"), true, R"({"decision": "complete", "reasoning": "done"})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
}

TEST_F(PlanExecuteTest, ReplanWithInlineTasks_SkipsTheReplannerAndRenamesClashes) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})", kLlmEvaluator);
  Sent();
  h_.Finish(w_, Step("a"), true, "A done");
  Sent();
  h_.Finish(w_, Step("evaluator-1"), true,
            R"({"decision": "replan", "reasoning": "needs tests",
                "tasks": [{"id": "a", "goal": "A again"}, {"id": "t", "goal": "T", "deps": ["a"]}]})");
  ASSERT_THAT(Sent(), ElementsAre("a-replan-1"));
  h_.Finish(w_, Step("a-replan-1"), true, "A2");
  ASSERT_THAT(Sent(), ElementsAre("t"));
  EXPECT_THAT(h_.ReadTaskView(run_, "t").deps(), ElementsAre("a-replan-1"));
  h_.Finish(w_, Step("t"), true, "T");
  ASSERT_THAT(Sent(), ElementsAre("evaluator-2"));
  h_.Finish(w_, Step("evaluator-2"), true, R"({"decision": "complete", "reasoning": "ok"})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["total_steps"], 3);
}

TEST_F(PlanExecuteTest, ReplanWithoutTasks_TheReplannerAddsThem) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})", kLlmEvaluator);
  Sent();
  h_.Finish(w_, Step("a"), true, "A done");
  Sent();
  h_.Finish(w_, Step("evaluator-1"), true, R"({"decision": "replan", "reasoning": "gaps"})");
  ASSERT_THAT(Sent(), ElementsAre("replanner-1"));
  EXPECT_THAT(Step("replanner-1").prompt(), HasSubstr("Why it needs more work: gaps"));
  h_.Finish(w_, Step("replanner-1"), true,
            R"({"tasks": [{"id": "b", "goal": "B", "deps": ["a"]}]})");
  EXPECT_THAT(Sent(), ElementsAre("b"));
}

TEST_F(PlanExecuteTest, MaxIterations_StopsReplanning) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})",
       R"(, "evaluator": "llm", "evaluatorAgent": "planner", "enableReplanning": true,
          "maxIterations": 1)");
  Sent();
  h_.Finish(w_, Step("a"), true, "A done");
  Sent();
  h_.Finish(w_, Step("evaluator-1"), true,
            R"({"decision": "replan", "reasoning": "more", "tasks": [{"id": "b", "goal": "B"}]})");
  EXPECT_THAT(Sent(), IsEmpty());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["total_steps"], 1);
}

TEST_F(PlanExecuteTest, ReplannedCycle_FailsTheReplannersAttempt) {
  Plan(R"({"tasks": [{"id": "a", "goal": "A"}]})", kLlmEvaluator);
  Sent();
  h_.Finish(w_, Step("a"), true, "A done");
  Sent();
  h_.Finish(w_, Step("evaluator-1"), true,
            R"({"decision": "replan", "reasoning": "r", "tasks": [
                {"id": "x", "goal": "X", "deps": ["y"]}, {"id": "y", "goal": "Y", "deps": ["x"]}]})");
  std::vector<v1::Assignment> again = h_.TakeAssignments(w_);
  ASSERT_THAT(Ids(again), ElementsAre("evaluator-1"));
  const v1::Task evaluator = h_.ReadTaskView(run_, "evaluator-1");
  ASSERT_EQ(evaluator.earlier_attempts_size(), 1);
  EXPECT_EQ(evaluator.earlier_attempts(0).ended(), "failed");
  EXPECT_THAT(evaluator.earlier_attempts(0).detail(), HasSubstr("dependency cycle"));
}

}  // namespace
}  // namespace taskboard::engine
