// Engine task timers on a FakeClock: task timeouts, retry backoff, the
// scheduling timeout for agents no worker offers (also once the last worker
// of an agent left), and the output size limit.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "work"}]})";

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

// ---------------------------------------------------------------------------
// Ready tasks whose workers went away

TEST(EngineRuns, LastWorkerOfAgentLeaves_QueuedTaskFailsAfterSchedulingTimeout) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"}]})");
  h.OnlyAssignment(w);  // a; b waits for a slot
  ASSERT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_READY);
  h.Disconnect(w);
  h.Advance(60'001);
  v1::Task b = h.ReadTaskView(run_id, "b");
  EXPECT_EQ(b.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(b.error(), HasSubstr("no worker offers agent 'coder'"));
}

}  // namespace
}  // namespace taskboard::engine
