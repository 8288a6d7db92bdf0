// A task's earlier attempts (Task.earlier_attempts, attempt_history.h): every
// way the engine ends an attempt and runs the task again records the attempt
// (number, worker, start, end, why it ended, detail), the list is bounded,
// and it is part of the stored task, so it survives a scheduler restart.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work"}]})";
constexpr char kOneRetry[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work", "retries": 1}]})";

TEST(AttemptHistory, AgentFailure_WithRetriesLeft_RecordsTheFailedAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneRetry);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(w);
  h.Started(w, first);
  const int64_t started_ms = h.clock().NowMs();
  h.clock().Advance(2'100);
  h.Result(w, first, false, "compiler not found");
  h.Credits(w, 1);

  v1::Task retrying = h.ReadTaskView(run_id, "a");
  ASSERT_EQ(retrying.state(), v1::TASK_STATE_RETRYING);
  ASSERT_THAT(retrying.earlier_attempts(), SizeIs(1));
  const v1::TaskAttempt& failed = retrying.earlier_attempts(0);
  EXPECT_EQ(failed.attempt(), 1);
  EXPECT_EQ(failed.worker_id(), "w1");
  EXPECT_EQ(failed.ended(), attempt_end::kFailed);
  EXPECT_EQ(failed.detail(), "compiler not found");
  EXPECT_EQ(ToUnixMs(failed.started_at()), started_ms);
  EXPECT_EQ(ToUnixMs(failed.ended_at()), started_ms + 2'100);

  h.Advance(1'000);  // the retry backoff
  v1::Assignment second = h.OnlyAssignment(w);
  ASSERT_EQ(second.attempt(), 2);
  h.Started(w, second);
  v1::Task running = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(running.attempt(), 2);
  EXPECT_EQ(running.error(), "") << "the failure belongs to attempt 1, not the running one";
  EXPECT_EQ(ToUnixMs(running.started_at()), h.clock().NowMs());
  h.Finish(w, second, true, "built");
  v1::Task done = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(done.state(), v1::TASK_STATE_COMPLETED);
  ASSERT_THAT(done.earlier_attempts(), SizeIs(1)) << "the last attempt is the task's own";
  EXPECT_EQ(done.earlier_attempts(0).detail(), "compiler not found");
}

TEST(AttemptHistory, LastAttemptFailsForGood_StaysTheTasksOwnNotInTheList) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), false, "boom");
  v1::Task failed = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(failed.state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(failed.error(), "boom");
  EXPECT_THAT(failed.earlier_attempts(), IsEmpty());
}

TEST(AttemptHistory, LeaseExpired_RecordsTheSilentWorkersAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker silent = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(silent);
  h.Started(silent, first);
  h.Advance(30'001);
  TestWorker healthy = h.Connect("w2", {"coder"});
  ASSERT_EQ(h.OnlyAssignment(healthy).attempt(), 2);

  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(0).worker_id(), "w1");
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kLeaseExpired);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "worker 'w1' sent no heartbeat for 30000 ms");
  EXPECT_EQ(task.worker_id(), "w2");
}

TEST(AttemptHistory, WorkerRestartedWithoutTheTask_RecordedAsWorkerLost) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Started(w, h.OnlyAssignment(w));
  h.Disconnect(w);
  TestWorker restarted = h.Restarted(w, {"coder"}, /*slots=*/1);
  ASSERT_EQ(h.OnlyAssignment(restarted).attempt(), 2);

  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(0).worker_id(), "w1");
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kWorkerLost);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "worker 'w1' restarted without it");
}

TEST(AttemptHistory, ReturnedOnDrain_RecordedAndTheNextAttemptKeepsItsNumber) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker draining = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(draining);
  h.Started(draining, a);
  v1::ConnectRequest returned;
  returned.mutable_task_returned()->set_task_id(a.task_id());
  returned.mutable_task_returned()->set_lease_id(a.lease_id());
  returned.mutable_task_returned()->set_reason("worker draining: drained by an operator");
  h.Send(draining, returned);

  TestWorker other = h.Connect("w2", {"coder"});
  v1::Assignment again = h.OnlyAssignment(other);
  EXPECT_EQ(again.attempt(), 1) << "a returned task does not use an attempt";
  h.Finish(other, again, true, "done");
  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(0).worker_id(), "w1");
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kReturned);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "worker draining: drained by an operator");
  EXPECT_EQ(task.worker_id(), "w2");
  EXPECT_EQ(task.attempt(), 1);
}

TEST(AttemptHistory, TimedOut_RecordedWithTheTimeout) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "t", "phases": [
      {"id": "a", "agent": "coder", "task": "slow", "timeoutSeconds": 10, "retries": 1}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Started(w, h.OnlyAssignment(w));
  h.Advance(10'000);

  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kTimedOut);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "timed out after 10s (timeoutSeconds)");
}

TEST(AttemptHistory, ResumedAfterAFailure_KeepsTheFailedAttemptAcrossARestart) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), false, "boom");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
  const int64_t failed_ms = h.clock().NowMs();

  h.Restart();
  h.clock().Advance(5'000);
  ASSERT_TRUE(h.Resume(run_id).ok());
  TestWorker again = h.Connect("w2", {"coder"});
  v1::Assignment rerun = h.OnlyAssignment(again);
  h.Finish(again, rerun, true, "fixed");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);

  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(0).worker_id(), "w1");
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kFailed);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "boom");
  EXPECT_EQ(ToUnixMs(task.earlier_attempts(0).ended_at()), failed_ms)
      << "it ended when it failed, not at the resume";
  EXPECT_EQ(task.worker_id(), "w2");
}

TEST(AttemptHistory, ResumedAfterACancel_RecordsTheCancelledAttemptOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneRetry);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), false, "flaky");  // attempt 1 failed, retrying
  ASSERT_TRUE(h.Cancel(run_id, "stop").ok());
  ASSERT_TRUE(h.Resume(run_id).ok());

  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(1))
      << "the attempt recorded when it failed is not recorded again as cancelled";
  EXPECT_EQ(task.earlier_attempts(0).ended(), attempt_end::kFailed);
  EXPECT_EQ(task.earlier_attempts(0).detail(), "flaky");

  v1::Assignment rerun = h.OnlyAssignment(w);
  h.clock().Advance(1'000);
  h.Started(w, rerun);
  ASSERT_TRUE(h.Cancel(run_id, "stop again").ok());
  ASSERT_TRUE(h.Resume(run_id).ok());
  task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(2));
  EXPECT_EQ(task.earlier_attempts(1).attempt(), 1);
  EXPECT_EQ(task.earlier_attempts(1).ended(), attempt_end::kCancelled);
  EXPECT_THAT(task.earlier_attempts(1).detail(), ::testing::HasSubstr("stop again"));
}

TEST(AttemptHistory, ManyLostLeases_KeepsOnlyTheLatestAttempts) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.max_infra_attempts = 100;
  EngineHarness h(options);
  std::string run_id = h.Submit(kOneTask);
  constexpr int kLost = kMaxEarlierAttempts + 5;
  for (int i = 1; i <= kLost; ++i) {
    TestWorker w = h.Connect("w" + std::to_string(i), {"coder"});
    ASSERT_EQ(h.OnlyAssignment(w).attempt(), i);
    h.Advance(30'001);
  }
  v1::Task task = h.ReadTaskView(run_id, "a");
  ASSERT_THAT(task.earlier_attempts(), SizeIs(kMaxEarlierAttempts));
  EXPECT_EQ(task.earlier_attempts(0).attempt(), kLost - kMaxEarlierAttempts + 1)
      << "the oldest are dropped";
  EXPECT_EQ(task.earlier_attempts(kMaxEarlierAttempts - 1).attempt(), kLost);
  EXPECT_EQ(task.earlier_attempts(kMaxEarlierAttempts - 1).worker_id(),
            "w" + std::to_string(kLost));
}

}  // namespace
}  // namespace taskboard::engine
