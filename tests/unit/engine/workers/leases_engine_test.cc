// Engine lease timers on a FakeClock: lease expiry and heartbeats, and
// worker reconnects.

#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::Held;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work"}]})";

// ---------------------------------------------------------------------------
// Leases

TEST(EngineTimers, LeaseExpiry_NoHeartbeat_RequeuedAsAttempt2OnAnotherWorker) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker silent = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(silent);
  ASSERT_EQ(first.attempt(), 1);
  h.Started(silent, first);
  TestWorker healthy = h.Connect("w2", {"coder"});
  EXPECT_THAT(h.TakeAssignments(healthy), IsEmpty());

  h.Advance(29'000);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RUNNING);
  EXPECT_THAT(EngineHarness::Cancels(silent.channel->Take()), IsEmpty());

  h.Advance(1'500);
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(silent.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].lease_id(), first.lease_id());
  EXPECT_EQ(cancels[0].reason(), "lease expired");

  v1::Assignment second = h.OnlyAssignment(healthy);
  EXPECT_EQ(second.task_id(), "a");
  EXPECT_EQ(second.attempt(), 2);
  EXPECT_NE(second.lease_id(), first.lease_id());
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.worker_id(), "w2");
  EXPECT_EQ(task.attempt(), 2);

  // The silent worker wakes up: its result is fenced off.
  h.Result(silent, first, true, "late");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(silent.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_FALSE(acks[0].accepted());
  h.Finish(healthy, second, true, "on time");
  EXPECT_EQ(h.ReadRunView(run_id).output(), "on time");
}

TEST(EngineTimers, LeaseExpiry_InfraLossesUsedUp_TaskFails) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.max_infra_attempts = 2;
  EngineHarness h(options);
  std::string run_id = h.Submit(kOneTask);
  TestWorker w1 = h.Connect("w1", {"coder"});
  h.OnlyAssignment(w1);
  TestWorker w2 = h.Connect("w2", {"coder"});
  h.Advance(30'001);
  h.OnlyAssignment(w2);
  h.Advance(30'001);
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.error(), StartsWith("lost by workers 2 times; last: worker 'w2' sent no "
                                       "heartbeat for 30000 ms"));
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
}

TEST(EngineTimers, Heartbeat_KeepsTheLease) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  TestWorker other = h.Connect("w2", {"coder"});
  for (int i = 0; i < 4; ++i) {
    h.Advance(15'000);
    h.Heartbeat(w, {a.lease_id()});
  }
  EXPECT_THAT(EngineHarness::Cancels(w.channel->Take()), IsEmpty());
  EXPECT_THAT(h.TakeAssignments(other), IsEmpty());
  h.Result(w, a, true, "kept");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

TEST(EngineTimers, Heartbeat_FromAnotherStream_DoesNotKeepTheLease) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  TestWorker other = h.Connect("w2", {"coder"});
  h.Advance(20'000);
  h.Heartbeat(other, {a.lease_id()});
  h.Advance(10'001);
  EXPECT_EQ(h.OnlyAssignment(other).attempt(), 2);
}

// The engine stalled (a slow store write, here a clock that moved 2 s past
// the lease's expiry while events queued up) with the worker's heartbeat
// behind another event in a backlog bigger than one batch: the lease is
// measured from the heartbeat, which the engine has yet to process, so the
// batch before it expires nothing.
TEST(EngineTimers, EngineStall_HeartbeatInTheBacklog_KeepsTheLease) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.max_batch_events = 1;
  EngineHarness h(options);
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  h.Advance(29'000);

  v1::ConnectRequest nothing;  // a message the engine ignores, ahead of the heartbeat
  h.engine().WorkerMessage(w.stream_id, nothing);
  v1::ConnectRequest heartbeat;
  heartbeat.mutable_heartbeat()->add_lease_ids(a.lease_id());
  h.engine().WorkerMessage(w.stream_id, heartbeat);
  h.clock().Advance(2'000);  // the engine wakes 31 s after the last heartbeat it saw
  absl::Notification drained;
  h.engine().Cancel("no-such-run", "", [&](absl::StatusOr<v1::RunStatus>) { drained.Notify(); });
  h.engine().Start();
  ASSERT_TRUE(drained.WaitForNotificationWithTimeout(absl::Seconds(30)));
  h.engine().Stop();

  EXPECT_THAT(EngineHarness::Cancels(w.channel->Take()), IsEmpty());
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(task.attempt(), 1);
}

// ---------------------------------------------------------------------------
// Reconnects

TEST(EngineTimers, Reconnect_HoldingLease_KeepsTheTask) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  h.Disconnect(w);
  h.Advance(10'000);

  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/0, {Held(a)});
  std::vector<v1::ConnectResponse> messages = again.channel->Take();
  ASSERT_THAT(messages, SizeIs(1));
  ASSERT_TRUE(messages[0].has_welcome());
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), IsEmpty());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RUNNING);

  // The lease now lives on the new stream: its heartbeats keep it.
  h.Advance(25'000);
  h.Heartbeat(again, {a.lease_id()});
  h.Advance(25'000);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").attempt(), 1);
  h.Result(again, a, true, "after reconnect");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(again.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_TRUE(acks[0].accepted());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

TEST(EngineTimers, Reconnect_WithoutTheLease_RequeuedAtOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Disconnect(w);

  // Restarted process: holds nothing, and gets the task again right away.
  TestWorker restarted = h.Restarted(w, {"coder"}, /*slots=*/1);
  v1::Assignment again = h.OnlyAssignment(restarted);
  EXPECT_EQ(again.task_id(), "a");
  EXPECT_EQ(again.attempt(), 2);
  EXPECT_NE(again.lease_id(), a.lease_id());
}

// The same process reconnects without a task it never reported started:
// the assignment was lost with the stream, nothing ran, and the task is
// queued again without using an attempt.
TEST(EngineTimers, Reconnect_SameProcessNeverGotTheAssignment_RequeuedWithoutAnAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Disconnect(w);

  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/1, {});
  v1::Assignment second = h.OnlyAssignment(again);
  EXPECT_EQ(second.task_id(), "a");
  EXPECT_EQ(second.attempt(), 1);
  EXPECT_NE(second.lease_id(), a.lease_id());
  h.Finish(again, second, true, "once");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

// A started task the same process no longer holds may have run: that is a
// lost attempt, as for a restarted process.
TEST(EngineTimers, Reconnect_SameProcessWithoutAStartedTask_CostsAnAttempt) {
  EngineHarness h;
  h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  h.Disconnect(w);

  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/1, {});
  EXPECT_EQ(h.OnlyAssignment(again).attempt(), 2);
}

// A lease id proves nothing on its own: another worker id, or the same id
// authenticated as another token, cannot take a lease back.
TEST(EngineTimers, Reconnect_LeaseClaimedByAnotherWorkerOrToken_Revoked) {
  EngineHarness h;
  h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"}, 1, {}, {}, "i-1", "pool-a");
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  h.Disconnect(w);
  const auto revoked = [](const TestWorker& worker) {
    std::vector<v1::ConnectResponse> messages = worker.channel->Take();
    EXPECT_FALSE(messages.empty());
    return messages.empty()
               ? std::vector<std::string>()
               : std::vector<std::string>(messages[0].welcome().revoked_lease_ids().begin(),
                                          messages[0].welcome().revoked_lease_ids().end());
  };

  // Another worker id with the lease id: revoked.
  EXPECT_THAT(revoked(h.Connect("w2", {"coder"}, 0, {Held(a)}, {}, "i-9", "pool-a")),
              ElementsAre(a.lease_id()));
  // The same worker id behind another token: revoked too.
  EXPECT_THAT(revoked(h.Connect("w1", {"coder"}, 0, {Held(a)}, {}, "i-1", "pool-b")),
              ElementsAre(a.lease_id()));
  // The holder itself takes it back.
  EXPECT_THAT(revoked(h.Connect("w1", {"coder"}, 0, {Held(a)}, {}, "i-1", "pool-a")), IsEmpty());
}

TEST(EngineTimers, Reconnect_HoldingUnknownLease_RevokedInWelcome) {
  EngineHarness h;
  v1::HeldTask stale;
  stale.set_task_id("a");
  stale.set_lease_id("l-ffffffffffffffff");
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1, {stale});
  std::vector<v1::ConnectResponse> messages = w.channel->Take();
  ASSERT_THAT(messages, SizeIs(1));
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), ElementsAre("l-ffffffffffffffff"));
}

}  // namespace
}  // namespace taskboard::engine
