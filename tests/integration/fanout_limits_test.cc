// Every fan-out has a limit, end to end (docs/security.md#limits): a real
// scheduler with small limits is hit with 100 times each one, answers with
// an error naming the limit and its flag, and then still runs a normal flow.

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/plans.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::SizeIs;
using testing::StatusIs;

ClusterOptions SmallLimits() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--max-items-per-phase",   "3",   "--max-plan-tasks",         "2",
                             "--max-iterations",        "1",   "--max-interpolated-bytes", "100",
                             "--max-tool-result-bytes", "200", "--max-event-bytes",        "1024"};
  return options;
}

// A plan of `count` independent tasks, as JSON text.
using ::taskboard::testing::PlanOf;

class FanOutLimitsTest : public testing::ClusterTest {
 protected:
  FanOutLimitsTest() : ClusterTest(SmallLimits()) {}
};

TEST_F(FanOutLimitsTest, MapOverTheItemLimit_FailsThePhaseNamingTheFlag) {
  v1::Run run = Run(R"({"name": "wide", "phases": [
      {"id": "list", "agent": "echo", "task": "list 300", "output": "json"},
      {"id": "each", "type": "map", "agent": "echo", "task": "echo {item.n}",
       "over": "{steps.list.json}", "dependsOn": ["list"]}]})");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(), HasSubstr("'over' resolved to 300 items, over the scheduler's limit "
                                     "of 3 per phase (scheduler flag --max-items-per-phase)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, ParallelOverTheBranchLimit_IsRejectedAtSubmit) {
  std::string branches;
  for (int i = 0; i < 300; ++i) {
    absl::StrAppend(&branches, i == 0 ? "" : ",", R"({"task": "echo )", i, R"("})");
  }
  absl::StatusOr<std::string> run_id = cluster_.Submit(absl::StrCat(
      R"({"name": "wide", "phases": [{"id": "p", "type": "parallel", "agent": "echo",
          "branches": [)",
      branches, "]}]}"));
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(std::string(run_id.status().message()),
              HasSubstr("has 300 branches, over the limit of 3 per phase (scheduler flag "
                        "--max-items-per-phase)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, MaxIterationsOverTheCap_IsRejectedAtSubmit) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"({"name": "loop", "kind": "supervisor",
      "supervisor": {"goal": "g", "plannerAgent": "echo", "workerAgent": "echo",
                     "reviewerAgent": "echo", "maxIterations": 100}})");
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(run_id.status().message()),
              HasSubstr("supervisor.maxIterations: maxIterations 100 is over the scheduler's "
                        "limit of 1 (scheduler flag --max-iterations)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, PlanOverTheTaskLimit_IsRetriedThenFailsNamingTheFlag) {
  // The echo agent answers with its prompt, which starts with the goal: the
  // goal is the plan it returns.
  v1::Run run = Run(absl::StrCat(R"({"name": "big-plan", "kind": "plan_and_execute",
      "maxAttemptsPerTask": 2,
      "planAndExecute": {"plannerAgent": "echo", "executorAgent": "echo", "goal": )",
                                 Json(PlanOf(200)).dump(), "}}"));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(),
              HasSubstr("planner failed: the plan is invalid: 200 planned tasks are over the "
                        "scheduler's limit of 2 per plan (scheduler flag --max-plan-tasks)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, InterpolationOverTheLimit_FailsNamingPhaseFieldAndFlag) {
  v1::Run run = Run(R"({"name": "grow", "phases": [
      {"id": "a", "agent": "echo", "task": "list 1000"},
      {"id": "b", "agent": "echo", "task": "echo {steps.a.output}", "dependsOn": ["a"]}]})");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(),
              HasSubstr("phase 'b': 'task' is over 100 bytes once interpolated, the scheduler's "
                        "limit (scheduler flag --max-interpolated-bytes)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, ToolResultOverTheLimit_IsRecordedAsAnErrorNamingTheFlag) {
  std::ofstream(cluster_.dir() / "big.txt") << std::string(20'000, 'x');
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"({"name": "read", "phases": [
      {"id": "read", "agent": "echo", "task": "tool read_file {\"path\": \"big.txt\"}"}]})");
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_.WaitForRun(*run_id).status(), IsOk());
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_.ToolCalls(*run_id, "read");
  ASSERT_THAT(calls.status(), IsOk());
  ASSERT_THAT(*calls, SizeIs(1));
  EXPECT_TRUE((*calls)[0].result_json().empty());
  EXPECT_THAT((*calls)[0].error(), HasSubstr("over the scheduler's limit of 200 bytes (scheduler "
                                             "flag --max-tool-result-bytes)"));
  ExpectStillServing();
}

TEST_F(FanOutLimitsTest, EventOverTheLimit_IsCutWithAMarkerWhileTheRunKeepsTheFullOutput) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"({"name": "long", "phases": [
      {"id": "a", "agent": "echo", "task": "list 10000"}]})");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster_.WatchToEnd(*run_id);
  ASSERT_THAT(events.status(), IsOk());
  bool cut = false;
  for (const v1::RunEvent& event : *events) {
    EXPECT_LE(event.ByteSizeLong(), 1024u);
    if (event.has_task_change() && event.task_change().task().state() == v1::TASK_STATE_COMPLETED) {
      EXPECT_THAT(event.task_change().task().output(),
                  HasSubstr("bytes shown; scheduler flag --max-event-bytes]"));
      cut = true;
    }
  }
  EXPECT_TRUE(cut);
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_GT(run->output().size(), 100'000u);
  ExpectStillServing();
}

}  // namespace
}  // namespace taskboard
