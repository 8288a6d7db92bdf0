#include "scheduler/flow/default_agent.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(DefaultAgent, Taskflow_PhasesAndBranchesWithoutAgent_Listed) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "phases": [
      {"id": "a", "task": "x", "agent": "coder"},
      {"id": "b", "task": "y"},
      {"id": "p", "type": "parallel", "branches": [{"task": "1", "agent": "w"}, {"task": "2"}]},
      {"id": "q", "type": "parallel", "branches": [{"task": "1", "agent": "w"}]},
      {"id": "m", "type": "map", "over": "[1]", "task": "{item}"}]})");
  EXPECT_THAT(UnsetAgentPaths(spec),
              ElementsAre("phases[1].agent", "phases[2].agent", "phases[4].agent"));
}

TEST(DefaultAgent, Fill_SetsEveryUnsetAgentAndKeepsNamedOnes) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "phases": [
      {"id": "a", "task": "x", "agent": "coder"},
      {"id": "p", "type": "parallel", "branches": [{"task": "1", "agent": "w"}, {"task": "2"}]}]})");
  FillFlowDefaults("writer", &spec);
  EXPECT_EQ(spec.taskflow().phases(0).agent(), "coder");
  EXPECT_EQ(spec.taskflow().phases(1).agent(), "writer");
  EXPECT_EQ(spec.taskflow().phases(1).branches(0).agent(), "w");
  EXPECT_THAT(UnsetAgentPaths(spec), IsEmpty());
}

TEST(DefaultAgent, PatternPhases_TheirRolesListedAndTheWorkingAgentIsThePhases) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "phases": [
      {"id": "r", "type": "plan", "agent": "coder", "task": "x",
       "plan": {"enableReplanning": true}},
      {"id": "s", "type": "supervise", "task": "y", "supervise": {"reviewerAgent": "lead"}}]})");
  EXPECT_THAT(UnsetAgentPaths(spec),
              ElementsAre("phases[0].plan.plannerAgent", "phases[0].plan.evaluatorAgent",
                          "phases[1].agent", "phases[1].supervise.plannerAgent"));
  FillFlowDefaults("writer", &spec);
  EXPECT_EQ(spec.taskflow().phases(0).plan().evaluator(), v1::EVALUATOR_KIND_LLM);
  EXPECT_EQ(spec.taskflow().phases(1).agent(), "writer");
  EXPECT_TRUE(spec.taskflow().phases(1).supervise().worker_agent().empty());
  EXPECT_THAT(UnsetAgentPaths(spec), IsEmpty());
}

TEST(DefaultAgent, Shorthand_TaskWithoutAgent_Listed) {
  EXPECT_THAT(UnsetAgentPaths(LoadValidFlow(R"({"task": "say hi"})")),
              ElementsAre("phases[0].agent"));
  EXPECT_THAT(UnsetAgentPaths(LoadValidFlow(R"({"chain": ["a", {"task": "b", "agent": "w"}]})")),
              ElementsAre("phases[0].agent"));
}

TEST(DefaultAgent, Board_TasksWithoutAgent_Listed) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "b", "board": {"tasks": [
      {"id": "a", "task": "x", "agent": "w"}, {"id": "b", "task": "y"}]}})");
  EXPECT_THAT(UnsetAgentPaths(spec), ElementsAre("board.tasks[1].agent"));
}

TEST(DefaultAgent, PlanAndExecute_OnlyAGoal_PlannerAndExecutorDefaultSynthesizerStaysNone) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g"}})");
  EXPECT_THAT(UnsetAgentPaths(spec),
              ElementsAre("planAndExecute.plannerAgent", "planAndExecute.executorAgent"));
  FillFlowDefaults("helper", &spec);
  EXPECT_EQ(spec.plan_and_execute().planner_agent(), "helper");
  EXPECT_EQ(spec.plan_and_execute().executor_agent(), "helper");
  EXPECT_EQ(spec.plan_and_execute().synthesizer_agent(), "") << "no synthesizer unless named";
  EXPECT_EQ(spec.plan_and_execute().replanner_agent(), "") << "falls back to the planner";
  EXPECT_EQ(spec.plan_and_execute().evaluator(), v1::EVALUATOR_KIND_UNSPECIFIED);
}

TEST(DefaultAgent, PlanAndExecute_ReplanningWithoutEvaluator_GetsTheLlmEvaluator) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g",
      "plannerAgent": "p", "executorAgent": "w", "enableReplanning": true}})");
  EXPECT_THAT(UnsetAgentPaths(spec), ElementsAre("planAndExecute.evaluatorAgent"));
  FillFlowDefaults("helper", &spec);
  EXPECT_EQ(spec.plan_and_execute().evaluator(), v1::EVALUATOR_KIND_LLM);
  EXPECT_EQ(spec.plan_and_execute().evaluator_agent(), "helper");
}

TEST(DefaultAgent, PlanAndExecute_NamedLlmEvaluatorAgent_Kept) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g",
      "evaluator": "llm", "evaluatorAgent": "judge"}})");
  FillFlowDefaults("helper", &spec);
  EXPECT_EQ(spec.plan_and_execute().evaluator_agent(), "judge");
}

TEST(DefaultAgent, PlanAndExecute_NestedSupervisor_RolesListedAtNestedPaths) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g",
      "plannerAgent": "p", "stepExecutor": {"workerAgent": "w"}}})");
  EXPECT_THAT(UnsetAgentPaths(spec), ElementsAre("planAndExecute.stepExecutor.plannerAgent",
                                                 "planAndExecute.stepExecutor.reviewerAgent"));
}

TEST(DefaultAgent, Supervisor_OnlyWorkers_PlannerAndReviewerDefault) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "s", "supervisor": {"goal": "g",
      "workerAgent": "w"}})");
  EXPECT_THAT(UnsetAgentPaths(spec),
              ElementsAre("supervisor.plannerAgent", "supervisor.reviewerAgent"));
  FillFlowDefaults("helper", &spec);
  EXPECT_EQ(spec.supervisor().planner_agent(), "helper");
  EXPECT_EQ(spec.supervisor().worker_agent(), "w");
  EXPECT_EQ(spec.supervisor().reviewer_agent(), "helper");
  EXPECT_EQ(spec.supervisor().synthesizer_agent(), "");
}

TEST(DefaultAgent, EmptyDefault_FillsOnlyTheEvaluator) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g",
      "enableReplanning": true}})");
  FillFlowDefaults("", &spec);
  EXPECT_EQ(spec.plan_and_execute().evaluator(), v1::EVALUATOR_KIND_LLM);
  EXPECT_EQ(spec.plan_and_execute().planner_agent(), "");
}

}  // namespace
}  // namespace taskboard::flow
