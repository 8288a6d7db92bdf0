// A worker whose lease expired without a heartbeat is silent: it is stopped,
// or cut off without its stream closing, so a lease given to it would only
// wait to expire again. It gets no new work, even with free credits and a
// task ready, until it sends anything at all.

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

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work"}]})";

// A worker with two slots whose only lease (task "a") has just expired
// without a heartbeat: "a" is ready again and the worker still has a credit.
class SilentWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_id_ = h_.Submit(kOneTask);
    worker_ = h_.Connect("w1", {"coder"}, /*slots=*/2);
    first_ = h_.OnlyAssignment(worker_);
    h_.Started(worker_, first_);
    h_.Advance(30'001);
    std::vector<v1::ConnectResponse> sent = worker_.channel->Take();
    ASSERT_THAT(EngineHarness::Cancels(sent), SizeIs(1));
    ASSERT_EQ(EngineHarness::Cancels(sent)[0].reason(), "lease expired");
    EXPECT_THAT(EngineHarness::Assignments(sent), IsEmpty())
        << "the task went straight back to the worker that let its lease expire";
    ASSERT_EQ(h_.ReadTaskView(run_id_, "a").state(), v1::TASK_STATE_READY);
  }

  EngineHarness h_;
  std::string run_id_;
  TestWorker worker_;
  v1::Assignment first_;
};

TEST_F(SilentWorkerTest, LeaseExpired_NoNewWorkWhileItStaysSilent) {
  for (int i = 0; i < 5; ++i) {
    h_.Advance(10'000);
    EXPECT_THAT(h_.TakeAssignments(worker_), IsEmpty()) << "after " << (i + 1) * 10 << " s more";
  }
  EXPECT_EQ(h_.ReadTaskView(run_id_, "a").state(), v1::TASK_STATE_READY);
}

TEST_F(SilentWorkerTest, LeaseExpired_AnotherWorkerGetsTheTask) {
  TestWorker other = h_.Connect("w2", {"coder"});
  v1::Assignment second = h_.OnlyAssignment(other);
  EXPECT_EQ(second.task_id(), "a");
  EXPECT_EQ(second.attempt(), 2);
  EXPECT_THAT(h_.TakeAssignments(worker_), IsEmpty());
}

TEST_F(SilentWorkerTest, Heartbeat_GetsWorkAgain) {
  h_.Advance(5'000);
  EXPECT_THAT(h_.TakeAssignments(worker_), IsEmpty());
  h_.Heartbeat(worker_, {});
  v1::Assignment second = h_.OnlyAssignment(worker_);
  EXPECT_EQ(second.task_id(), "a");
  EXPECT_EQ(second.attempt(), 2);
  EXPECT_NE(second.lease_id(), first_.lease_id());

  h_.Finish(worker_, second, true, "done");
  EXPECT_EQ(h_.Status(run_id_), v1::RUN_STATUS_COMPLETED);
}

TEST_F(SilentWorkerTest, Credits_GetsWorkAgain) {
  h_.Credits(worker_, 1);
  v1::Assignment second = h_.OnlyAssignment(worker_);
  EXPECT_EQ(second.task_id(), "a");
  EXPECT_EQ(second.attempt(), 2);
}

TEST_F(SilentWorkerTest, LateResultOfTheExpiredLease_GetsWorkAgain) {
  // Its late result is refused (the lease is gone), but it shows the worker
  // is alive: the ready task goes to it.
  h_.Result(worker_, first_, true, "late");
  std::vector<v1::ConnectResponse> sent = worker_.channel->Take();
  ASSERT_THAT(EngineHarness::Acks(sent), SizeIs(1));
  EXPECT_FALSE(EngineHarness::Acks(sent)[0].accepted());
  std::vector<v1::Assignment> assignments = EngineHarness::Assignments(sent);
  ASSERT_THAT(assignments, SizeIs(1));
  EXPECT_EQ(assignments[0].attempt(), 2);
}

}  // namespace
}  // namespace taskboard::engine
