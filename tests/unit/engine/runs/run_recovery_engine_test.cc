// Engine recovery of a store another engine wrote: leases and retries kept
// across the restart, finished runs left alone, and event numbers that never
// repeat after lost writes.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/run_recovery.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/forwarding_store.h"
#include "tests/unit/engine/runs/engine_runs.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::CountFinished;
using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::ExpectWellFormedLog;
using ::taskboard::engine::testing::kChain;
using ::taskboard::engine::testing::kDiamond;
using ::taskboard::engine::testing::TestWorker;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// ---------------------------------------------------------------------------
// Recovery

TEST(EngineRuns, Recovery_MidRun_DispatchedTaskRequeuedAfterLeaseTimeoutAndRunEndsOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kDiamond);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  std::vector<v1::Assignment> assigned = h.TakeAssignments(w);
  ASSERT_THAT(assigned, SizeIs(2));
  h.Finish(w, assigned[0], true, "alpha");  // a done, b still dispatched
  ASSERT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_DISPATCHED);

  h.Restart();  // w1's stream died with the old engine
  TestWorker fresh = h.Connect("w2", {"coder"}, /*slots=*/1);
  EXPECT_THAT(h.TakeAssignments(fresh), IsEmpty()) << "b's lease has not expired yet";
  EXPECT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_DISPATCHED);

  h.Advance(30'001);
  v1::Assignment b = h.OnlyAssignment(fresh);
  EXPECT_EQ(b.task_id(), "b");
  EXPECT_EQ(b.attempt(), 2);
  h.Finish(fresh, b, true, "beta");
  v1::Assignment c = h.OnlyAssignment(fresh);
  EXPECT_EQ(c.prompt(), "C alpha beta");
  h.Finish(fresh, c, true, "gamma");

  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "gamma");
  std::vector<v1::RunEvent> events = h.Events(run_id);
  ExpectWellFormedLog(events, run_id);
  EXPECT_EQ(CountFinished(events), 1);
}

TEST(EngineRuns, Recovery_WorkerReconnectsHoldingLease_KeepsIt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);

  h.Restart();
  v1::HeldTask held;
  held.set_task_id("a");
  held.set_lease_id(a.lease_id());
  TestWorker again = h.Connect("w1", {"coder"}, /*slots=*/0, {held});
  std::vector<v1::ConnectResponse> messages = again.channel->Take();
  ASSERT_THAT(messages, SizeIs(1));
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), IsEmpty());
  h.Result(again, a, true, "survived the restart");
  ASSERT_TRUE(EngineHarness::Acks(again.channel->Take()).at(0).accepted());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").output(), "survived the restart");
  h.Credits(again, 1);
  EXPECT_EQ(h.OnlyAssignment(again).task_id(), "b");
}

TEST(EngineRuns, Recovery_WorkerReconnectsWithoutLease_RequeuedAtOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);

  h.Restart();
  TestWorker restarted = h.Restarted(w, {"coder"}, /*slots=*/1);
  v1::Assignment again = h.OnlyAssignment(restarted);
  EXPECT_EQ(again.task_id(), "a");
  EXPECT_EQ(again.attempt(), 2);
}

// The scheduler committed a dispatch and died before the assignment left:
// the same worker process reconnects without it, and the task runs once,
// as attempt 1.
TEST(EngineRuns, Recovery_AssignmentNeverSent_RequeuedWithoutAnAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.OnlyAssignment(w);

  h.Restart();
  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/1, {});
  v1::Assignment a = h.OnlyAssignment(again);
  EXPECT_EQ(a.task_id(), "a");
  EXPECT_EQ(a.attempt(), 1);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").attempt(), 1);
}

TEST(EngineRuns, Recovery_RetryingTaskWaitsOutItsBackoff) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A", "retries": 1}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), false, "oops");
  ASSERT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RETRYING);

  h.Restart();
  TestWorker again = h.Connect("w1", {"coder"});
  EXPECT_THAT(h.TakeAssignments(again), IsEmpty());
  h.Advance(1'000);
  EXPECT_EQ(h.OnlyAssignment(again).attempt(), 2);
}

TEST(EngineRuns, Recovery_ReadyTaskOlderThanSchedulingTimeout_WaitsForWorkersToReconnect) {
  // A task that waited long for a free worker must not fail on restart just
  // because no worker has reconnected yet when the first batch runs.
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  h.Advance(50'000);
  h.Restart();
  h.Advance(20'000);  // 70 s after the task became ready
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);
  TestWorker w = h.Connect("w1", {"coder"});
  EXPECT_EQ(h.OnlyAssignment(w).task_id(), "a");
}

TEST(EngineRuns, Recovery_FinishedRunsStayFinished) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "done");
  const size_t events = h.Events(run_id).size();
  h.Restart();
  h.RunOnce();
  TestWorker again = h.Connect("w1", {"coder"});
  EXPECT_THAT(h.TakeAssignments(again), IsEmpty());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.Events(run_id).size(), events);
}

// A store whose previous process may have lost writes (stop_marker.h).
class LossyStore final : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool MayHaveLostWrites() const override { return true; }
};

// After a restart on a store that may have lost its last writes, an
// unfinished run's events skip ahead: a number a watcher may have seen
// before the loss is never given to another event.
TEST(EngineRuns, Recovery_AfterLostWrites_EventNumbersSkipAheadNeverRepeat) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  const int64_t last_before = h.Events(run_id).back().seq();

  LossyStore lossy(h.store());
  h.store_override = &lossy;
  h.Restart();
  v1::HeldTask held;
  held.set_task_id(a.task_id());
  held.set_lease_id(a.lease_id());
  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/0, {held});
  h.Result(again, a, true, "done");
  std::vector<v1::RunEvent> events = h.Events(run_id, last_before);
  ASSERT_FALSE(events.empty());
  EXPECT_GE(events.front().seq(), last_before + kSeqGapAfterLostWrites);
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].seq(), events[i - 1].seq() + 1);
}

}  // namespace
}  // namespace taskboard::engine
