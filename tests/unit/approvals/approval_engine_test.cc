// Approval phases in the engine (EngineHarness: a MemoryStore, a FakeClock,
// pretend workers): an approval task waits without a worker, a decision
// completes it (approve runs downstream with the form values, reject blocks
// the run like a gate), a decision is final, the deadline decides as
// onTimeout says, and a restart keeps it waiting with its deadline.

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/testing/event_tasks.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/approvals/approval_calls.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::Answer;
using ::taskboard::engine::testing::DecideApproval;
using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::PendingApprovals;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kRelease[] = R"({"name": "release", "phases": [
    {"id": "build", "agent": "coder", "task": "build it"},
    {"id": "ok", "type": "approval", "prompt": "Ship {steps.build.output}?",
     "choices": ["later"], "form": [{"name": "version", "required": true}],
     "approvers": ["alice", "role:admin"], "dependsOn": ["build"]},
    {"id": "ship", "agent": "coder", "task": "ship {steps.ok.json.values.version}",
     "dependsOn": ["ok"]}]})";

std::string TimedFlow(const std::string& on_timeout) {
  return R"({"name": "timed", "phases": [
      {"id": "ok", "type": "approval", "prompt": "go?", "timeoutSeconds": 60)" +
         (on_timeout.empty() ? std::string() : R"(, "onTimeout": ")" + on_timeout + "\"") +
         R"(},
      {"id": "next", "agent": "coder", "task": "after {steps.ok.json.decision}",
       "dependsOn": ["ok"]}]})";
}

ApprovalAnswer Approve(std::string version = "1.2") {
  ApprovalAnswer answer;
  answer.decision = "approve";
  answer.values["version"] = std::move(version);
  answer.comment = "looks good";
  return answer;
}

// Runs `build` and leaves the run waiting at `ok`.
std::string WaitingRelease(EngineHarness& h, TestWorker& worker) {
  std::string run_id = h.Submit(kRelease);
  worker = h.Connect("w1", {"coder"});
  h.Finish(worker, h.OnlyAssignment(worker), true, "v1 build");
  return run_id;
}

TEST(ApprovalEngine, WaitsWithoutAWorker_PromptInterpolated_Listed) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  EXPECT_THAT(h.TakeAssignments(worker), IsEmpty()) << "nothing is dispatched for an approval";
  v1::Task task = h.ReadTaskView(run_id, "ok");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(task.role(), "approval");
  EXPECT_TRUE(task.worker_id().empty());
  EXPECT_EQ(task.approval().prompt(), "Ship v1 build?");
  EXPECT_FALSE(task.approval().has_decision());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);

  std::vector<v1::PendingApproval> pending = PendingApprovals(h);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].run_id(), run_id);
  EXPECT_EQ(pending[0].step_id(), "ok");
  EXPECT_EQ(pending[0].flow_name(), "release");
  EXPECT_EQ(pending[0].approval().prompt(), "Ship v1 build?");
  EXPECT_THAT(PendingApprovals(h, "another-tenant"), IsEmpty());

  // The run's events show it waiting.
  bool seen = false;
  for (const v1::RunEvent& event : h.Events(run_id)) {
    for (const v1::Task* task : ::taskboard::testing::TasksIn(event)) {
      seen = seen || (task->task_id() == "ok" && task->state() == v1::TASK_STATE_RUNNING &&
                      task->approval().prompt() == "Ship v1 build?");
    }
  }
  EXPECT_TRUE(seen);
}

TEST(ApprovalEngine, Approve_DownstreamRunsWithTheFormValue) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  absl::StatusOr<v1::Task> decided = DecideApproval(h, run_id, "ok", Approve("1.2"));
  ASSERT_THAT(decided, ::taskboard::testing::IsOk());
  EXPECT_EQ(decided->state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(decided->approval().decision().decided_by(), "alice");

  v1::Assignment ship = h.OnlyAssignment(worker);
  EXPECT_EQ(ship.task_id(), "ship");
  EXPECT_EQ(ship.prompt(), "ship 1.2");
  h.Finish(worker, ship, true, "shipped");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  v1::Task task = h.ReadTaskView(run_id, "ok");
  EXPECT_THAT(task.output(), HasSubstr(R"("decision":"approve")"));
  EXPECT_THAT(task.output(), HasSubstr(R"("values":{"version":"1.2"})"));
  EXPECT_THAT(task.output(), HasSubstr(R"("decided_by":"alice")"));
  EXPECT_THAT(PendingApprovals(h), IsEmpty());
}

TEST(ApprovalEngine, Reject_BlocksTheRunAndSkipsDownstream) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "ok", Answer("reject", "not now")),
              ::taskboard::testing::IsOk());
  EXPECT_THAT(h.TakeAssignments(worker), IsEmpty());
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(run.output(), HasSubstr("rejected by alice: not now"));
  bool skipped = false;
  for (const v1::PhaseStatus& phase : run.phases()) {
    if (phase.phase_id() != "ship") continue;
    skipped = true;
    EXPECT_EQ(phase.state(), v1::TASK_STATE_SKIPPED);
    // A reference to the decision, not a copy of its comment (issue 33).
    EXPECT_EQ(phase.skip_reason(), "approval 'ok' blocked: rejected by alice (see its decision)");
  }
  EXPECT_TRUE(skipped);
}

TEST(ApprovalEngine, DecidingTwice_NamesWhoDecidedFirst) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "ok", Approve()), ::taskboard::testing::IsOk());
  absl::StatusOr<v1::Task> again =
      DecideApproval(h, run_id, "ok", Answer("reject", "too late"), {"bob", true});
  EXPECT_THAT(again, StatusIs(absl::StatusCode::kFailedPrecondition,
                              HasSubstr("already decided (approve) by 'alice' at ")));
  h.Finish(worker, h.OnlyAssignment(worker), true, "shipped");
  // After the run ended too.
  EXPECT_THAT(DecideApproval(h, run_id, "ok", Answer("reject", "later")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("by 'alice'")));
}

TEST(ApprovalEngine, RefusedDecisions_SayWhy) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  EXPECT_THAT(DecideApproval(h, run_id, "ok", Approve(""), {"mallory", false, false}),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("its approvers are: alice, role:admin")));
  EXPECT_THAT(DecideApproval(h, run_id, "ok", Approve("")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("required form values missing: version")));
  ApprovalAnswer unknown;
  unknown.decision = "choice";
  unknown.choice = "never";
  EXPECT_THAT(DecideApproval(h, run_id, "ok", unknown),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the flow offers: approve, reject, later")));
  EXPECT_THAT(DecideApproval(h, run_id, "nope", Approve()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(DecideApproval(h, "no-such-run", "ok", Approve()),
              StatusIs(absl::StatusCode::kNotFound));
  // An admin may, and a declared choice counts as approval.
  ApprovalAnswer later;
  later.decision = "choice";
  later.choice = "later";
  later.values["version"] = "2";
  ASSERT_THAT(DecideApproval(h, run_id, "ok", later, {"root", true, false}),
              ::taskboard::testing::IsOk());
  EXPECT_EQ(h.OnlyAssignment(worker).task_id(), "ship");
  EXPECT_THAT(h.ReadTaskView(run_id, "ok").output(), HasSubstr(R"("choice":"later")"));
}

TEST(ApprovalEngine, Timeout_DefaultRejects) {
  EngineHarness h;
  std::string run_id = h.Submit(TimedFlow(""));
  h.Advance(59'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  h.Advance(2'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_BLOCKED);
  EXPECT_EQ(h.ReadTaskView(run_id, "ok").approval().decision().decided_by(), "timeout");
}

TEST(ApprovalEngine, Timeout_Approve_DownstreamRuns) {
  EngineHarness h;
  std::string run_id = h.Submit(TimedFlow("approve"));
  TestWorker worker = h.Connect("w1", {"coder"});
  h.Advance(61'000);
  v1::Assignment next = h.OnlyAssignment(worker);
  EXPECT_EQ(next.prompt(), "after approve");
  h.Finish(worker, next, true, "done");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

TEST(ApprovalEngine, Timeout_Fail_FailsTheRun) {
  EngineHarness h;
  std::string run_id = h.Submit(TimedFlow("fail"));
  h.Advance(61'000);
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(), HasSubstr("no decision within the approval's timeout"));
}

TEST(ApprovalEngine, Restart_StillWaiting_DeadlineRearmed) {
  EngineHarness h;
  std::string run_id = h.Submit(TimedFlow("approve"));
  h.Advance(30'000);
  h.Restart();
  h.RunOnce();
  EXPECT_EQ(h.ReadTaskView(run_id, "ok").state(), v1::TASK_STATE_RUNNING);
  ASSERT_THAT(PendingApprovals(h), SizeIs(1));
  TestWorker worker = h.Connect("w1", {"coder"});
  EXPECT_THAT(h.TakeAssignments(worker), IsEmpty());
  h.Advance(31'000);
  EXPECT_EQ(h.OnlyAssignment(worker).prompt(), "after approve");
}

TEST(ApprovalEngine, Restart_ThenDecide_RunCompletes) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingRelease(h, worker);
  h.Restart();
  h.RunOnce();
  ASSERT_THAT(DecideApproval(h, run_id, "ok", Approve("3")), ::taskboard::testing::IsOk());
  TestWorker again = h.Connect("w2", {"coder"});
  v1::Assignment ship = h.OnlyAssignment(again);
  EXPECT_EQ(ship.prompt(), "ship 3");
  h.Finish(again, ship, true, "shipped");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

}  // namespace
}  // namespace taskboard::engine
