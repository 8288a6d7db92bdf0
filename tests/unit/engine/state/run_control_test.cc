// ResumeRun preparation (reuse of done phases by input hash) and
// cancellation, on a RunState driven by DriverHarness.

#include "scheduler/engine/state/run_control.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/driver_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::DriverHarness;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Resumes the harness's run the way Engine::Resume does.
void Resume(DriverHarness& run) {
  ASSERT_THAT(CheckResumable(run.state().record()), IsOk());
  PrepareResume(run.state());
  run.RestartDriver();
  run.Start();
}

// ---------------------------------------------------------------------------
// Resume

TEST(RunControl, Resume_FailedRun_ReusesDonePhasesAndRerunsFailedOne) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B from {steps.a.output}", "dependsOn": ["a"]},
      {"id": "c", "agent": "coder", "task": "C from {steps.b.output}", "dependsOn": ["b"]}]})");
  run.Start();
  run.Complete("a", "alpha");
  run.Fail("b", "flaky network");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  ASSERT_EQ(run.PhaseState("c"), v1::TASK_STATE_SKIPPED);
  const int32_t generation = run.state().record().generation();

  Resume(run);
  EXPECT_EQ(run.state().record().generation(), generation + 1);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.run().error(), "");
  EXPECT_EQ(run.PhaseState("a"), v1::TASK_STATE_COMPLETED);
  EXPECT_TRUE(run.Phase("a").reused());
  EXPECT_EQ(run.Phase("a").output(), "alpha");
  EXPECT_EQ(run.Task("a").task().state(), v1::TASK_STATE_COMPLETED) << "not dispatched again";
  EXPECT_THAT(run.Ready(), ElementsAre("b"));
  EXPECT_FALSE(run.Phase("b").reused());
  EXPECT_EQ(run.Prompt("b"), "B from alpha");
  EXPECT_EQ(run.Task("b").task().attempt(), 0) << "a fresh task, not attempt 2 of the old one";
  EXPECT_EQ(run.Task("b").task().error(), "");

  run.Complete("b", "beta");
  run.Complete("c", "gamma");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), "gamma");
}

TEST(RunControl, Resume_DonePhaseWhoseInputChanged_RunsAgain) {
  // d consumed the empty output of optional o; on resume o succeeds, so d's
  // task text (and input hash) changes and d must not be reused.
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "o", "agent": "coder", "task": "optional", "optional": true},
      {"id": "d", "agent": "coder", "task": "got [{steps.o.output}]", "dependsOn": ["o"]},
      {"id": "f", "agent": "coder", "task": "fails"},
      {"id": "end", "agent": "coder", "task": "end", "dependsOn": ["d", "f"]}]})");
  run.Start();
  run.Fail("o", "nope");
  run.Complete("d", "D1");
  run.Fail("f", "boom");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED);

  Resume(run);
  EXPECT_THAT(run.Ready(), ElementsAre("f", "o"));
  EXPECT_EQ(run.PhaseState("d"), v1::TASK_STATE_PENDING);
  run.Complete("o", "O");
  EXPECT_FALSE(run.Phase("d").reused());
  ASSERT_THAT(run.Ready(), ElementsAre("d", "f"));
  EXPECT_EQ(run.Prompt("d"), "got [O]");
}

// A board task's phase is given its input hash when it completes, from the
// task it ran (decision 131): a resume reuses it exactly when the same
// inputs would run again, as for a taskflow phase.
TEST(RunControl, Resume_FailedBoard_ReusesCompletedTasksByInputAndRerunsTheRest) {
  DriverHarness run(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "fetch", "agent": "scout", "task": "fetch it"},
      {"id": "opt", "agent": "scout", "task": "maybe", "optional": true},
      {"id": "fix", "agent": "coder", "task": "fix {steps.fetch.output}", "deps": ["fetch"]},
      {"id": "use", "agent": "coder", "task": "use [{steps.opt.output}]", "deps": ["opt"]},
      {"id": "test", "agent": "tester", "task": "test", "deps": ["fix"]}]}})");
  run.Start();
  run.Complete("fetch", "bug 12");
  run.Fail("opt", "nope");
  run.Complete("use", "U1");
  run.Fail("fix", "flaky");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  ASSERT_EQ(run.PhaseState("test"), v1::TASK_STATE_SKIPPED);

  Resume(run);
  EXPECT_TRUE(run.Phase("fetch").reused());
  EXPECT_EQ(run.Task("fetch").task().state(), v1::TASK_STATE_COMPLETED) << "not dispatched again";
  EXPECT_THAT(run.Ready(), ElementsAre("fix", "opt"));
  EXPECT_EQ(run.Prompt("fix"), "fix bug 12");
  // `use` read the failed optional task's empty output; it succeeds now, so
  // `use` is asked something else and runs again.
  run.Complete("opt", "O");
  EXPECT_FALSE(run.Phase("use").reused());
  EXPECT_THAT(run.Ready(), ElementsAre("fix", "use"));
  EXPECT_EQ(run.Prompt("use"), "use [O]");
  run.Complete("fix", "fixed");
  run.Complete("use", "U2");
  run.Complete("test", "ok");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
}

TEST(RunControl, Resume_DoneMapPhase_ReusedWithoutNewItemTasks) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "dependsOn": ["d"]},
      {"id": "s", "agent": "coder", "task": "sum {steps.m.json}", "dependsOn": ["m"]}]})");
  run.Start();
  run.Complete("d", R"(["x", "y"])");
  run.Complete("m[0]", "X");
  run.Complete("m[1]", "Y");
  run.Fail("s", "crashed");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED);

  Resume(run);
  EXPECT_TRUE(run.Phase("d").reused());
  EXPECT_TRUE(run.Phase("m").reused());
  EXPECT_EQ(run.Phase("m").output_json(), R"(["X","Y"])");
  EXPECT_THAT(run.Ready(), ElementsAre("s"));
  EXPECT_EQ(run.Task("m[0]").task().state(), v1::TASK_STATE_COMPLETED);
  EXPECT_NE(run.Prompt("s").find("\"X\""), std::string::npos) << run.Prompt("s");
}

TEST(RunControl, Resume_BlockedRunWithReusedGate_BlocksAgain) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "g", "type": "gate", "agent": "judge", "task": "judge {steps.a.output}",
       "dependsOn": ["a"]},
      {"id": "b", "agent": "coder", "task": "B", "dependsOn": ["g"]}]})");
  run.Start();
  run.Complete("a", "alpha");
  run.Complete("g", "VERDICT: BLOCK not good enough");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);

  Resume(run);
  EXPECT_TRUE(run.Phase("a").reused());
  EXPECT_TRUE(run.Phase("g").reused());
  EXPECT_FALSE(run.Phase("g").status().gate().pass());
  EXPECT_EQ(run.PhaseState("b"), v1::TASK_STATE_SKIPPED);
  EXPECT_EQ(run.Phase("b").status().skip_reason(), "gate 'g' blocked: not good enough");
  EXPECT_THAT(run.Ready(), IsEmpty());
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_EQ(run.state().record().blocked_by(), "g");
}

TEST(RunControl, Resume_CancelledRun_RerunsCancelledPhases) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B", "dependsOn": ["a"]}]})");
  run.Start();
  run.Complete("a", "alpha");
  CancelRunState(run.state(), "user", run.now());
  ASSERT_EQ(run.status(), v1::RUN_STATUS_CANCELLED);

  Resume(run);
  EXPECT_TRUE(run.Phase("a").reused());
  EXPECT_THAT(run.Ready(), ElementsAre("b"));
  run.Complete("b", "beta");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
}

TEST(RunControl, CheckResumable_RunningOrCompleted_FailedPrecondition) {
  store::RunRecord record;
  record.mutable_run()->set_run_id("run-7");
  record.mutable_run()->set_status(v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(CheckResumable(record),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("run run-7 is running; only failed, blocked, cancelled, "
                                 "paused or timed-out runs can be resumed")));
  record.mutable_run()->set_status(v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(CheckResumable(record),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("already completed: there is nothing to resume")));
  for (v1::RunStatus status :
       {v1::RUN_STATUS_FAILED, v1::RUN_STATUS_BLOCKED, v1::RUN_STATUS_CANCELLED,
        v1::RUN_STATUS_PAUSED, v1::RUN_STATUS_TIMED_OUT}) {
    record.mutable_run()->set_status(status);
    EXPECT_THAT(CheckResumable(record), IsOk()) << v1::RunStatus_Name(status);
  }
}

// ---------------------------------------------------------------------------
// Cancel

TEST(RunControl, Cancel_CancelsInFlightTasksAndReturnsTheirLeases) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"},
      {"id": "c", "agent": "coder", "task": "C", "dependsOn": ["a"]}]})");
  run.Start();
  run.Dispatch("a");
  const std::string lease = run.Task("a").lease_id();
  ASSERT_FALSE(lease.empty());
  run.TakeEvents();

  std::vector<std::string> leases = CancelRunState(run.state(), "user asked", run.now());
  EXPECT_THAT(leases, ElementsAre(lease));
  for (const char* id : {"a", "b"}) {
    EXPECT_EQ(run.Task(id).task().state(), v1::TASK_STATE_CANCELLED) << id;
    EXPECT_EQ(run.Task(id).task().error(), "cancelled: user asked") << id;
    EXPECT_EQ(run.Task(id).lease_id(), "") << id;
  }
  for (const char* id : {"a", "b", "c"}) {
    EXPECT_EQ(run.PhaseState(id), v1::TASK_STATE_CANCELLED) << id;
  }
  EXPECT_EQ(run.status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(run.run().error(), "cancelled: user asked");

  std::vector<v1::RunEvent> events = run.TakeEvents();
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().has_run_finished());
  EXPECT_EQ(events.back().run_finished().status(), v1::RUN_STATUS_CANCELLED);

  run.Advance();  // a cancelled run stays cancelled
  EXPECT_EQ(run.status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_THAT(run.TakeEvents(), IsEmpty());
}

TEST(RunControl, Cancel_KeepsFinishedTasksAsTheyWere) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B", "dependsOn": ["a"]}]})");
  run.Start();
  run.Complete("a", "alpha");
  EXPECT_THAT(CancelRunState(run.state(), "", run.now()), IsEmpty());
  EXPECT_EQ(run.Task("a").task().state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.PhaseState("a"), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.Task("b").task().state(), v1::TASK_STATE_CANCELLED);
  EXPECT_EQ(run.run().error(), "cancelled");
}

}  // namespace
}  // namespace taskboard::engine
