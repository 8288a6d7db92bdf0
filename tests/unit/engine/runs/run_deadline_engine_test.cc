// Run deadlines on the fake clock (docs/semantics.md#run-deadlines): the
// deadline ends the run `timed_out` through the path CancelRun takes, it is
// kept with the run across a restart, the smaller of the flow's and the
// caller's wins, and it leaves a run that finished first alone.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/runs/engine_runs.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::ExpectWellFormedLog;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// kChain with a 20 s run deadline (shorter than the harness's 30 s lease
// timeout, so no lease expires on the way).
constexpr char kChainWithDeadline[] = R"({"name": "chain", "runTimeoutSeconds": 20,
    "phases": [{"id": "a", "agent": "coder", "task": "write"},
      {"id": "b", "agent": "coder", "task": "review: {steps.a.output}", "dependsOn": ["a"]}]})";

TEST(RunDeadline, Submit_FlowDeadline_IsStoredWithItsSourceAndInstant) {
  EngineHarness h;
  const int64_t submitted_ms = h.clock().NowMs();
  std::string run_id = h.Submit(kChainWithDeadline);
  v1::Run run = h.ReadRunView(run_id);
  ASSERT_TRUE(run.has_deadline());
  EXPECT_EQ(run.deadline().timeout_seconds(), 20);
  EXPECT_EQ(run.deadline().source(), v1::RUN_DEADLINE_SOURCE_FLOW);
  EXPECT_EQ(ToUnixMs(run.deadline().deadline_at()), submitted_ms + 20'000);
}

TEST(RunDeadline, Passes_EndsRunTimedOutAndStopsItsWorkersAsCancelDoes) {
  EngineHarness h;
  std::string run_id = h.Submit(kChainWithDeadline);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);

  h.Advance(19'999);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(EngineHarness::Cancels(w.channel->Take()), IsEmpty());

  h.Advance(1);
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_TIMED_OUT);
  EXPECT_EQ(run.error(), "timed out: run deadline 20s (flow) passed");
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_CANCELLED);
  // b's task was never created: a taskflow makes a phase's tasks when it starts.
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(w.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].lease_id(), a.lease_id());
  EXPECT_EQ(cancels[0].reason(), "run deadline 20s (flow) passed");
  std::vector<v1::RunEvent> events = h.Events(run_id);
  ExpectWellFormedLog(events, run_id);
  EXPECT_EQ(events.back().run_finished().status(), v1::RUN_STATUS_TIMED_OUT);

  // The stopped agent's late result is fenced off; nothing more runs.
  h.Result(w, a, true, "late");
  std::vector<v1::ConnectResponse> after = w.channel->Take();
  ASSERT_THAT(EngineHarness::Acks(after), SizeIs(1));
  EXPECT_FALSE(EngineHarness::Acks(after)[0].accepted());
  h.Credits(w, 1);
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_TIMED_OUT);
  // CancelRun on it answers its status unchanged, as for any ended run.
  EXPECT_THAT(h.Cancel(run_id),
              ::testing::Eq(absl::StatusOr<v1::RunStatus>(v1::RUN_STATUS_TIMED_OUT)));
}

TEST(RunDeadline, RunFinishedBeforeIt_IsLeftAlone) {
  EngineHarness h;
  std::string run_id = h.Submit(kChainWithDeadline);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "A");
  h.Finish(w, h.OnlyAssignment(w), true, "B");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  const size_t events = h.Events(run_id).size();

  h.Advance(60'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.ReadRunView(run_id).error(), "");
  EXPECT_EQ(h.Events(run_id).size(), events);
}

TEST(RunDeadline, Restart_DeadlineIsReadBackFromTheStoreAndStillFires) {
  EngineHarness h;
  std::string run_id = h.Submit(kChainWithDeadline);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Started(w, h.OnlyAssignment(w));
  h.Advance(10'000);

  h.Restart();  // a new scheduler over the same store; the timer was in memory only
  h.Advance(9'999);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  h.Advance(1);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_TIMED_OUT);
  EXPECT_EQ(h.ReadRunView(run_id).error(), "timed out: run deadline 20s (flow) passed");
}

TEST(RunDeadline, Restart_AfterItPassedWhileDown_FiresInTheFirstBatch) {
  EngineHarness h;
  std::string run_id = h.Submit(kChainWithDeadline);
  h.clock().Advance(25'000);  // the scheduler is down meanwhile
  h.Restart();
  h.RunOnce();
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_TIMED_OUT);
}

TEST(RunDeadline, SubmitSmallerThanFlow_SubmitWins) {
  EngineHarness h;
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kChainWithDeadline);
  request.run_timeout_seconds = 5;
  absl::StatusOr<SubmitResult> submitted = h.TrySubmitRequest(std::move(request));
  ASSERT_THAT(submitted.status(), IsOk());
  v1::Run run = h.ReadRunView(submitted->run_id);
  EXPECT_EQ(run.deadline().timeout_seconds(), 5);
  EXPECT_EQ(run.deadline().source(), v1::RUN_DEADLINE_SOURCE_SUBMIT);

  h.Advance(5'000);
  run = h.ReadRunView(submitted->run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_TIMED_OUT);
  EXPECT_EQ(run.error(), "timed out: run deadline 5s (submit) passed");
}

TEST(RunDeadline, SubmitLargerThanFlow_FlowWins) {
  EngineHarness h;
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kChainWithDeadline);
  request.run_timeout_seconds = 3600;
  request.run_timeout_source = v1::RUN_DEADLINE_SOURCE_SCHEDULE;
  absl::StatusOr<SubmitResult> submitted = h.TrySubmitRequest(std::move(request));
  ASSERT_THAT(submitted.status(), IsOk());
  v1::Run run = h.ReadRunView(submitted->run_id);
  EXPECT_EQ(run.deadline().timeout_seconds(), 20);
  EXPECT_EQ(run.deadline().source(), v1::RUN_DEADLINE_SOURCE_FLOW);
}

TEST(RunDeadline, NoDeadlineAnywhere_RunHasNone) {
  EngineHarness h;
  EXPECT_FALSE(h.ReadRunView(h.Submit(testing::kChain)).has_deadline());
}

TEST(RunDeadline, Resume_TimedOutRun_GetsTheWholeTimeoutAgainFromTheResume) {
  EngineHarness h;
  std::string run_id = h.Submit(kChainWithDeadline);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "A");
  h.Started(w, h.OnlyAssignment(w));
  h.Advance(20'000);
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_TIMED_OUT);
  w.channel->Take();

  h.Advance(5'000);
  const int64_t resumed_ms = h.clock().NowMs();
  ASSERT_THAT(h.Resume(run_id).status(), IsOk());
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(ToUnixMs(run.deadline().deadline_at()), resumed_ms + 20'000);
  h.Credits(w, 1);
  EXPECT_EQ(h.OnlyAssignment(w).task_id(), "b");  // a's output is reused

  h.Advance(19'999);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  h.Advance(1);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_TIMED_OUT);
}

// A parent's deadline bounds its child runs the way Temporal's parent close
// policy "terminate" does (decision 191): when it passes the children end
// with it; they take no deadline of their own from it.
constexpr char kNestedWithDeadline[] = R"({"name": "migrate", "kind": "plan_and_execute",
    "runTimeoutSeconds": 20,
    "planAndExecute": {"goal": "migrate", "plannerAgent": "planner",
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder",
                       "reviewerAgent": "lead", "synthesizerAgent": "lead"}}})";

TEST(RunDeadline, ParentPasses_ItsChildRunsAreCancelledInTheSameBatch) {
  EngineHarness h;
  std::string parent = h.Submit(kNestedWithDeadline);
  TestWorker w = h.Connect("w1", {"planner", "lead", "coder"}, 8);
  h.Finish(w, h.OnlyAssignment(w), true, R"({"tasks": [{"id": "storage", "goal": "S"}]})");
  v1::Assignment child_planner = h.OnlyAssignment(w);
  const std::string child = child_planner.run_id();
  ASSERT_NE(child, parent);
  h.Started(w, child_planner);
  EXPECT_FALSE(h.ReadRunView(child).has_deadline());

  h.Advance(20'000);
  EXPECT_EQ(h.Status(parent), v1::RUN_STATUS_TIMED_OUT);
  v1::Run nested = h.ReadRunView(child);
  EXPECT_EQ(nested.status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_THAT(nested.error(), HasSubstr("its parent run " + parent + " ended timed_out"));
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(w.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].lease_id(), child_planner.lease_id());
}

}  // namespace
}  // namespace taskboard::engine
