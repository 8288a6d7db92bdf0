// timeoutSeconds bounds how long a task runs, counted from its TaskStarted:
// a task waiting in a worker's prefetch queue (dispatched, not started) is
// not timed out for the time it waited behind another task.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kTwoTimedTasks[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "coder", "task": "first", "timeoutSeconds": 20},
    {"id": "b", "agent": "coder", "task": "second", "timeoutSeconds": 20}]})";

// One worker offering two places (a slot and a queue place): both tasks go
// out at t=0, and "b" waits in the worker's queue while "a" runs.
class TaskTimeoutFromStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_id_ = h_.Submit(kTwoTimedTasks);
    worker_ = h_.Connect("w1", {"coder"}, /*slots=*/2);
    std::vector<v1::Assignment> assignments = h_.TakeAssignments(worker_);
    ASSERT_THAT(assignments, SizeIs(2));
    for (v1::Assignment& assignment : assignments) {
      (assignment.task_id() == "a" ? a_ : b_) = std::move(assignment);
    }
    h_.Started(worker_, a_);
  }

  EngineHarness h_;
  std::string run_id_;
  TestWorker worker_;
  v1::Assignment a_;
  v1::Assignment b_;
};

TEST_F(TaskTimeoutFromStartTest, QueuedTask_TimeoutCountsFromItsStart) {
  h_.Advance(15'000);
  h_.Result(worker_, a_, true, "done");
  h_.Started(worker_, b_);  // leaves the queue 15 s after its dispatch

  h_.Advance(10'000);  // 25 s after the dispatch, 10 s after the start
  EXPECT_THAT(EngineHarness::Cancels(worker_.channel->Take()), IsEmpty());
  EXPECT_EQ(h_.ReadTaskView(run_id_, "b").state(), v1::TASK_STATE_RUNNING);

  h_.Advance(10'000);  // 20 s after the start
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(worker_.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].task_id(), "b");
  EXPECT_EQ(cancels[0].reason(), "task timed out");
  EXPECT_EQ(h_.ReadTaskView(run_id_, "b").error(), "timed out after 20s (timeoutSeconds)");
}

TEST_F(TaskTimeoutFromStartTest, TaskStillQueued_IsNotTimedOut) {
  // "a" runs on (and times out itself at 20 s); "b" stays queued for a
  // minute, its lease kept by heartbeats, three times its own timeout.
  for (int i = 0; i < 6; ++i) {
    h_.Advance(10'000);
    h_.Heartbeat(worker_, {b_.lease_id()});
  }
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(worker_.channel->Take());
  for (const v1::Cancel& cancel : cancels) {
    EXPECT_NE(cancel.task_id(), "b") << "a queued task was cancelled: " << cancel.reason();
  }
  EXPECT_EQ(h_.ReadTaskView(run_id_, "b").state(), v1::TASK_STATE_DISPATCHED);
}

}  // namespace
}  // namespace taskboard::engine
