// Boards run on the taskflow driver as single-task phases (flow/kinds/board_kind.h):
// deps, priorities, optional tasks, skipping and the JSON output of a board.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/drivers/taskflow_driver.h"
#include "tests/unit/engine/driver_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::DriverHarness;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(BoardDriver, Deps_TasksStartWhenTheirDepsComplete) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "fetch", "agent": "scout", "task": "fetch it"},
      {"id": "fix", "agent": "coder", "task": "fix {steps.fetch.output}", "deps": ["fetch"]},
      {"id": "test", "agent": "tester", "task": "test", "deps": ["fetch"]}]}})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("fetch"));
  EXPECT_EQ(run.Task("fetch").task().role(), "board_task");
  EXPECT_EQ(run.Sent("fetch").role(), "board_task");
  run.Complete("fetch", "bug 12");
  EXPECT_THAT(run.Ready(), ElementsAre("fix", "test"));
  EXPECT_EQ(run.Prompt("fix"), "fix bug 12");
  EXPECT_THAT(run.Task("fix").task().deps(), ElementsAre("fetch"));
}

TEST(BoardDriver, Priority_CarriedOnTasksForTheReadyQueue) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "low", "agent": "a", "task": "l", "priority": 1},
      {"id": "high", "agent": "a", "task": "h", "priority": 9}]}})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("high", "low"));
  EXPECT_EQ(run.Task("low").priority(), 1);
  EXPECT_EQ(run.Task("high").priority(), 9);
}

TEST(BoardDriver, Priority_UnderConcurrencyLimitHigherPriorityStartsFirst) {
  // Listed low first: with room for one task, the higher priority one must
  // be the one that becomes ready (examples/flows/triage-board.yaml).
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"concurrency": 1, "tasks": [
      {"id": "low", "agent": "a", "task": "l", "priority": 1},
      {"id": "high", "agent": "a", "task": "h", "priority": 9}]}})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("high"));
  run.Complete("high", "H");
  EXPECT_THAT(run.Ready(), ElementsAre("low"));
}

TEST(BoardDriver, Concurrency_LimitsTasksInFlight) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"concurrency": 2, "tasks": [
      {"id": "t1", "agent": "a", "task": "1"},
      {"id": "t2", "agent": "a", "task": "2"},
      {"id": "t3", "agent": "a", "task": "3"}]}})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("t1", "t2"));
  EXPECT_FALSE(run.HasTask("t3"));
  run.Complete("t1", "one");
  EXPECT_THAT(run.Ready(), ElementsAre("t2", "t3"));
}

TEST(BoardDriver, Completed_OutputIsJsonObjectOfTaskOutputs) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "x", "task": "A"},
      {"id": "b", "agent": "x", "task": "B", "deps": ["a"]}]}})");
  run.Start();
  run.Complete("a", "alpha");
  run.Complete("b", "beta");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), R"({"a":"alpha","b":"beta"})");
}

TEST(BoardDriver, Failure_SkipsDependentTasksWithReasonAndFailsRun) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "x", "task": "A"},
      {"id": "b", "agent": "x", "task": "B", "deps": ["a"]},
      {"id": "c", "agent": "x", "task": "C", "deps": ["b"]}]}})");
  run.Start();
  run.Fail("a", "broken");
  for (const char* id : {"b", "c"}) {
    EXPECT_EQ(run.Task(id).task().state(), v1::TASK_STATE_SKIPPED) << id;
    EXPECT_EQ(run.Task(id).task().skip_reason(), "upstream phase 'a' failed") << id;
  }
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.run().error(), "task 'a' failed: broken");
}

TEST(BoardDriver, OptionalTaskFails_DependentsStillRun) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "dup", "agent": "x", "task": "search", "optional": true},
      {"id": "decide", "agent": "x", "task": "dups: [{steps.dup.output}]", "deps": ["dup"]}]}})");
  run.Start();
  run.Fail("dup", "search down");
  ASSERT_THAT(run.Ready(), ElementsAre("decide"));
  EXPECT_EQ(run.Prompt("decide"), "dups: []");
  run.Complete("decide", "S3");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), R"({"decide":"S3"})");
}

TEST(BoardDriver, Events_BoardsEmitNoPhaseChanges) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "x", "task": "A"}]}})");
  run.Start();
  run.Complete("a", "done");
  std::vector<v1::RunEvent> events = run.TakeEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].has_run_finished());
  EXPECT_THAT(run.TasksIn(v1::TASK_STATE_READY), IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
