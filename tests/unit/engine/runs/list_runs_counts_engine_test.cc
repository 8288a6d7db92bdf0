// ListRuns says how far each run is (tasks_total, tasks_done) from counts
// the engine keeps in the run record as tasks change, so `taskboard runs`
// shows progress without reading every task; and it leaves out a board's
// phases (one per task), which GetRun still returns.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kBoard[] = R"({"name": "b", "kind": "board", "board": {"tasks": [
    {"id": "a", "agent": "coder", "task": "one"},
    {"id": "b", "agent": "coder", "task": "two"},
    {"id": "c", "agent": "coder", "task": "three"}]}})";

constexpr char kTwoPhases[] = R"({"name": "t", "phases": [
    {"id": "first", "agent": "coder", "task": "one"},
    {"id": "second", "agent": "coder", "task": "two: {steps.first.output}",
     "dependsOn": ["first"]}]})";

v1::Run Listed(EngineHarness& h, const std::string& run_id) {
  absl::StatusOr<v1::ListRunsResponse> listed = ListRuns(h.store(), v1::ListRunsRequest());
  EXPECT_TRUE(listed.ok()) << listed.status();
  if (listed.ok()) {
    for (const v1::Run& run : listed->runs()) {
      if (run.run_id() == run_id) return run;
    }
  }
  ADD_FAILURE() << "run " << run_id << " not listed";
  return v1::Run();
}

TEST(ListRunsCounts, Board_CountsAsTasksFinishAndLeavesPhasesToGetRun) {
  EngineHarness h;
  const std::string run_id = h.Submit(kBoard);
  v1::Run listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_total(), 3);
  EXPECT_EQ(listed.tasks_done(), 0);
  EXPECT_THAT(listed.phases(), IsEmpty()) << "a board's phases are its tasks";
  EXPECT_THAT(listed.tasks(), IsEmpty());

  TestWorker worker = h.Connect("w1", {"coder"}, /*slots=*/3);
  std::vector<v1::Assignment> assignments = h.TakeAssignments(worker);
  ASSERT_THAT(assignments, SizeIs(3));
  h.Result(worker, assignments[0], true, "done");
  h.Result(worker, assignments[1], false, "broke");
  listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_total(), 3);
  EXPECT_EQ(listed.tasks_done(), 2) << "a failed task is done too";

  h.Result(worker, assignments[2], true, "done");
  listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_done(), 3);
  EXPECT_TRUE(IsTerminal(listed.status()));

  absl::StatusOr<v1::Run> full = ReadRun(h.store(), run_id, /*with_tasks=*/true);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(full->phases(), SizeIs(3));
  EXPECT_EQ(full->tasks_done(), listed.tasks_done());
}

TEST(ListRunsCounts, Taskflow_KeepsPhasesAndCountsTasksAsTheyAreCreated) {
  EngineHarness h;
  const std::string run_id = h.Submit(kTwoPhases);
  TestWorker worker = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(worker);
  v1::Run listed = Listed(h, run_id);
  EXPECT_THAT(listed.phases(), SizeIs(2));
  EXPECT_EQ(listed.tasks_total(), 1) << "the second phase has no task yet";
  EXPECT_EQ(listed.tasks_done(), 0);

  h.Result(worker, first, true, "out");
  h.Credits(worker, 1);
  v1::Assignment second = h.OnlyAssignment(worker);
  listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_total(), 2);
  EXPECT_EQ(listed.tasks_done(), 1);
}

TEST(ListRunsCounts, AfterARestart_CountsGoOnFromTheStoredTasks) {
  EngineHarness h;
  const std::string run_id = h.Submit(kBoard);
  TestWorker worker = h.Connect("w1", {"coder"}, /*slots=*/3);
  std::vector<v1::Assignment> assignments = h.TakeAssignments(worker);
  ASSERT_THAT(assignments, SizeIs(3));
  h.Result(worker, assignments[0], true, "done");

  h.Restart();
  v1::Run listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_total(), 3);
  EXPECT_EQ(listed.tasks_done(), 1);

  // A new worker finishes the other two once their leases expire.
  TestWorker again = h.Connect("w2", {"coder"}, /*slots=*/3);
  for (int i = 0; i < 10 && !IsTerminal(h.Status(run_id)); ++i) {
    for (const v1::Assignment& assignment : h.TakeAssignments(again)) {
      h.Result(again, assignment, true, "done");
      h.Credits(again, 1);
    }
    h.Advance(10'000);
  }
  ASSERT_TRUE(IsTerminal(h.Status(run_id)));
  listed = Listed(h, run_id);
  EXPECT_EQ(listed.tasks_total(), 3);
  EXPECT_EQ(listed.tasks_done(), 3);
}

}  // namespace
}  // namespace taskboard::engine
