#include "scheduler/engine/runs/starting_runs.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RunsFixture;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "A"}]})";

TEST(StartingRuns, WhenTasksCreated_OtherRun_RunsAtOnce) {
  RunsFixture f;
  bool ran = false;
  f.runs().starting().WhenTasksCreated("run-unknown", [&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(StartingRuns, WhenTasksCreated_StartingRun_WaitsForTheBatchThatCreatesItsTasks) {
  RunsFixture f;
  std::string run_id;
  f.Submit(kOneTask, "", [&](absl::StatusOr<SubmitResult> r) { run_id = r->run_id; });
  f.Commit();
  ASSERT_FALSE(run_id.empty());
  bool ran = false;
  f.runs().starting().WhenTasksCreated(run_id, [&] { ran = true; });
  EXPECT_FALSE(ran);

  f.runs().starting().StartPending();
  EXPECT_FALSE(ran) << "the tasks are not written yet";
  f.Commit();
  EXPECT_TRUE(ran);
}

TEST(StartingRuns, TasksCreated_AllOfThem_AnswersEveryWaitingRead) {
  RunsFixture f;
  std::string run_id;
  f.Submit(kOneTask, "", [&](absl::StatusOr<SubmitResult> r) { run_id = r->run_id; });
  f.Commit();
  int ran = 0;
  f.runs().starting().WhenTasksCreated(run_id, [&] { ++ran; });
  f.runs().starting().WhenTasksCreated(run_id, [&] { ++ran; });
  f.runs().starting().TasksCreated(nullptr);
  EXPECT_EQ(ran, 2);
}

TEST(StartingRuns, StartPending_StartsInSubmitOrder_AndNothingIsLeftPending) {
  RunsFixture f;
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    f.Submit(kOneTask, "", [&](absl::StatusOr<SubmitResult> r) { ids.push_back(r->run_id); });
  }
  f.Commit();
  ASSERT_EQ(ids.size(), 3u);
  f.runs().starting().StartPending();
  EXPECT_FALSE(f.runs().starting().any_pending());
  for (const std::string& id : ids) {
    EXPECT_EQ(f.runs().active().Find(id)->state->tasks().size(), 1u) << id;
  }
}

}  // namespace
}  // namespace taskboard::engine
