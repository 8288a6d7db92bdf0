// Engine timers on a FakeClock: lease expiry and heartbeats, worker
// reconnects, task timeouts, retry backoff, the scheduling timeout for
// agents no worker offers, and the output size limit.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work"}]})";

v1::HeldTask Held(const v1::Assignment& assignment) {
  v1::HeldTask held;
  held.set_task_id(assignment.task_id());
  held.set_lease_id(assignment.lease_id());
  return held;
}

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

// ---------------------------------------------------------------------------
// Task timeouts and retries

TEST(EngineTimers, TaskTimeout_CancelSentAndAttemptRetried) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "t", "phases": [
      {"id": "a", "agent": "coder", "task": "slow", "timeoutSeconds": 10, "retries": 1}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(w);
  EXPECT_EQ(first.timeout_seconds(), 10);
  h.Started(w, first);

  h.Advance(9'999);
  EXPECT_THAT(EngineHarness::Cancels(w.channel->Take()), IsEmpty());
  h.Advance(1);
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(w.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].task_id(), "a");
  EXPECT_EQ(cancels[0].lease_id(), first.lease_id());
  EXPECT_EQ(cancels[0].reason(), "task timed out");
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RETRYING);
  EXPECT_EQ(task.error(), "timed out after 10s (timeoutSeconds)");

  // The killed agent's late report does not count as a result, but the
  // conversation it had so far is kept for GetTask.
  v1::ConnectRequest late;
  v1::TaskResult& report = *late.mutable_task_result();
  report.set_task_id("a");
  report.set_lease_id(first.lease_id());
  report.set_success(false);
  report.set_error("cancelled: task timed out");
  report.mutable_execution()->set_turns(3);
  report.mutable_execution()->set_stop_reason("cancelled");
  h.Send(w, late);
  EXPECT_FALSE(EngineHarness::Acks(w.channel->Take()).at(0).accepted());
  v1::GetTaskResponse timed_out = h.ReadTaskResponse(run_id, "a");
  EXPECT_EQ(timed_out.task().state(), v1::TASK_STATE_RETRYING);
  EXPECT_EQ(timed_out.task().error(), "timed out after 10s (timeoutSeconds)");
  EXPECT_EQ(timed_out.execution().turns(), 3);
  EXPECT_TRUE(timed_out.execution().stopped());
  EXPECT_EQ(timed_out.execution().stop_reason(), "timeout");
  // A second late report (or one for another lease) changes nothing.
  h.Result(w, first, true, "too late");
  EXPECT_FALSE(EngineHarness::Acks(w.channel->Take()).at(0).accepted());
  EXPECT_EQ(h.ReadTaskResponse(run_id, "a").task().output(), "");
  h.Credits(w, 1);
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty()) << "still backing off";

  h.Advance(1'000);  // backoff for the first failure is at most base_ms
  v1::Assignment second = h.OnlyAssignment(w);
  EXPECT_EQ(second.attempt(), 2);
  h.Started(w, second);  // the timeout counts from here
  h.Advance(10'000);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
}

TEST(EngineTimers, RetryBackoff_FailedAttemptReadyAgainAfterDelay) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "t", "phases": [
      {"id": "a", "agent": "coder", "task": "flaky", "retries": 1}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment first = h.OnlyAssignment(w);
  h.Finish(w, first, false, "rate limited");
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RETRYING);
  EXPECT_EQ(task.error(), "rate limited");
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());

  h.Advance(499);  // the jittered delay is in [base/2, base]
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RETRYING);
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  h.Advance(501);
  v1::Assignment second = h.OnlyAssignment(w);
  EXPECT_EQ(second.attempt(), 2);
  h.Finish(w, second, true, "ok");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

// ---------------------------------------------------------------------------
// Scheduling timeout, output limit

TEST(EngineTimers, UnknownAgent_FailsAfterSchedulingTimeoutListingAgents) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"reviewer", "coder"});
  std::string run_id = h.Submit(R"({"name": "t", "phases": [
      {"id": "a", "agent": "writer", "task": "write"}]})");
  h.Advance(59'999);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);
  h.Advance(1);
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.error(), StartsWith("no worker offers agent 'writer' (available: coder, "
                                       "reviewer)"));
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(), HasSubstr("phase 'a' failed: no worker offers agent 'writer'"));
}

TEST(EngineTimers, UnknownAgent_NoWorkerAtAll_SaysSo) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  h.Advance(60'000);
  EXPECT_THAT(h.ReadTaskView(run_id, "a").error(),
              HasSubstr("(available: none, no worker is connected)"));
}

TEST(EngineTimers, UnknownAgent_WorkerArrivesInTime_TaskRuns) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  h.Advance(30'000);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  for (int i = 0; i < 2; ++i) {  // past the scheduling timeout, heartbeating
    h.Advance(20'000);
    h.Heartbeat(w, {a.lease_id()});
  }
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_DISPATCHED);
}

TEST(EngineTimers, UnknownAgent_ManyTasksOfOneRun_AllFailTogetherAtTheTimeout) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"coder"});
  constexpr int kTasks = 300;
  std::string tasks;
  for (int i = 0; i < kTasks; ++i) {
    absl::StrAppend(&tasks, i == 0 ? "" : ",", R"({"id": "t)", i,
                    R"(", "agent": "writer", "task": "write"})");
  }
  std::string run_id = h.Submit(
      absl::StrCat(R"({"name": "many", "kind": "board", "board": {"tasks": [)", tasks, "]}}"));
  h.Advance(59'999);
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_EQ(h.ReadTaskView(run_id, absl::StrCat("t", i)).state(), v1::TASK_STATE_READY) << i;
  }
  h.Advance(1);
  for (int i = 0; i < kTasks; ++i) {
    v1::Task task = h.ReadTaskView(run_id, absl::StrCat("t", i));
    EXPECT_EQ(task.state(), v1::TASK_STATE_FAILED) << task.task_id();
    EXPECT_EQ(task.error(),
              "no worker offers agent 'writer' (available: coder); start a worker with that "
              "agent or fix the flow's agent name")
        << task.task_id();
  }
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
}

TEST(EngineTimers, UnknownAgent_TasksReadyAtDifferentTimes_EachFailsAtItsOwnDeadline) {
  EngineHarness h;
  std::string early_run = h.Submit(R"({"name": "early", "phases": [
      {"id": "early", "agent": "writer", "task": "w"}]})");
  std::string late_run = h.Submit(R"({"name": "late", "phases": [
      {"id": "first", "agent": "coder", "task": "c"},
      {"id": "late", "agent": "writer", "task": "w", "dependsOn": ["first"]}]})");
  h.Advance(10'000);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "done");  // "late" is ready 10 s after "early"
  ASSERT_EQ(h.ReadTaskView(late_run, "late").state(), v1::TASK_STATE_READY);
  h.Advance(49'999);
  EXPECT_EQ(h.ReadTaskView(early_run, "early").state(), v1::TASK_STATE_READY);
  h.Advance(1);
  EXPECT_EQ(h.ReadTaskView(early_run, "early").state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(h.ReadTaskView(late_run, "late").state(), v1::TASK_STATE_READY);
  h.Advance(9'999);
  EXPECT_EQ(h.ReadTaskView(late_run, "late").state(), v1::TASK_STATE_READY);
  h.Advance(1);
  v1::Task late = h.ReadTaskView(late_run, "late");
  EXPECT_EQ(late.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(late.error(), HasSubstr("no worker offers agent 'writer' (available: coder)"));
}

TEST(EngineTimers, UnknownAgent_ItsWorkerCameAndLeft_TheWholeTimeoutCountsFromTheLeave) {
  EngineHarness h;
  std::string run_id = h.Submit(kOneTask);
  h.Advance(30'000);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/0);  // offers it, never free
  h.Advance(10'000);
  h.Disconnect(w);  // 40 s after the task became ready
  h.Advance(59'999);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);
  h.Advance(1);
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.error(), HasSubstr("(available: none, no worker is connected)"));
}

TEST(EngineTimers, OutputTooLarge_FailsTheAttemptWithClearError) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.max_output_bytes = 16;
  EngineHarness h(options);
  std::string run_id = h.Submit(kOneTask);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Result(w, a, true, std::string(17, 'x'));
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(w.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_TRUE(acks[0].accepted()) << "the failure is recorded";
  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(task.output(), "");
  EXPECT_THAT(task.error(),
              StartsWith("output of 17 bytes is over the scheduler's limit of 16 bytes"));
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
}

}  // namespace
}  // namespace taskboard::engine
