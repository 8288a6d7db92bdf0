// Gates a person decides and rejection routes in the engine (EngineHarness:
// a MemoryStore, a FakeClock, pretend workers). A gate with `approval:`
// waits like an approval phase (approve passes, reject blocks, the deadline
// decides, a restart keeps it waiting); `onReject` runs the named phases
// instead of blocking, and skips the others; `{steps.ID.output.NAME}`
// reads a form value.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
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
using ::taskboard::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kGate[] = R"({"name": "gated", "phases": [
    {"id": "build", "agent": "coder", "task": "build it"},
    {"id": "review", "type": "gate", "task": "Ship {steps.build.output}?",
     "approval": {"form": [{"name": "version", "required": true}], "approvers": ["alice"]},
     "timeoutSeconds": 60, "dependsOn": ["build"]},
    {"id": "ship", "agent": "coder", "task": "ship {steps.review.output.version}",
     "dependsOn": ["review"]}]})";

// draft -> approve (onReject: revise) -> revise | publish -> announce.
constexpr char kDraft[] = R"({"name": "draft", "phases": [
    {"id": "draft", "agent": "writer", "task": "write it"},
    {"id": "approve", "type": "approval", "prompt": "Publish?\n{steps.draft.output}",
     "onReject": "revise", "dependsOn": ["draft"]},
    {"id": "revise", "agent": "writer", "retries": 0,
     "task": "Revise per: {steps.approve.json.comment}\n{steps.draft.output}",
     "dependsOn": ["approve"]},
    {"id": "publish", "agent": "writer", "task": "publish {steps.draft.output}",
     "dependsOn": ["approve"]},
    {"id": "announce", "agent": "writer", "task": "announce", "dependsOn": ["publish"]}]})";

ApprovalAnswer Approve(std::map<std::string, std::string> values = {}) {
  ApprovalAnswer answer;
  answer.decision = "approve";
  answer.values = std::move(values);
  return answer;
}

v1::PhaseStatus PhaseOf(EngineHarness& h, const std::string& run_id, const std::string& id) {
  const v1::Run run = h.ReadRunView(run_id);
  for (const v1::PhaseStatus& phase : run.phases()) {
    if (phase.phase_id() == id) return phase;
  }
  ADD_FAILURE() << "no phase " << id;
  return {};
}

// Runs `build` and leaves the run waiting at the gate.
std::string WaitingGate(EngineHarness& h, TestWorker& worker) {
  std::string run_id = h.Submit(kGate);
  worker = h.Connect("w1", {"coder"});
  h.Finish(worker, h.OnlyAssignment(worker), true, "v1 build");
  return run_id;
}

// Runs `draft` and leaves the run waiting at `approve`.
std::string WaitingDraft(EngineHarness& h, TestWorker& worker) {
  std::string run_id = h.Submit(kDraft);
  worker = h.Connect("w1", {"writer"});
  h.Finish(worker, h.OnlyAssignment(worker), true, "the draft");
  return run_id;
}

TEST(GateApprovalEngine, WaitsForAPerson_NoAgentRuns_Listed) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  EXPECT_THAT(h.TakeAssignments(worker), IsEmpty()) << "no agent gives this gate's verdict";
  v1::Task task = h.ReadTaskView(run_id, "review");
  EXPECT_EQ(task.role(), "approval");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RUNNING);
  EXPECT_TRUE(task.worker_id().empty());
  EXPECT_EQ(task.approval().prompt(), "Ship v1 build?") << "the gate's task is the prompt";
  std::vector<v1::PendingApproval> pending = PendingApprovals(h);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].step_id(), "review");
  EXPECT_EQ(pending[0].approval().approvers(0), "alice");
}

TEST(GateApprovalEngine, Approve_GatePasses_FormValueAsOutputName) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "review", Approve({{"version", "1.2"}})), IsOk());
  v1::PhaseStatus gate = PhaseOf(h, run_id, "review");
  EXPECT_EQ(gate.state(), v1::TASK_STATE_COMPLETED);
  EXPECT_TRUE(gate.gate().pass());
  v1::Assignment ship = h.OnlyAssignment(worker);
  EXPECT_EQ(ship.prompt(), "ship 1.2");
  h.Finish(worker, ship, true, "shipped");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

TEST(GateApprovalEngine, Reject_BlocksTheRun_VerdictShowsTheRejection) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "review", Answer("reject", "not yet")), IsOk());
  EXPECT_THAT(h.TakeAssignments(worker), IsEmpty());
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(run.output(), HasSubstr("Approval rejected the workflow.\nReason: rejected by "
                                      "alice: not yet"));
  v1::PhaseStatus gate = PhaseOf(h, run_id, "review");
  EXPECT_FALSE(gate.gate().pass());
  EXPECT_EQ(gate.gate().reason(), "rejected by alice: not yet");
  v1::PhaseStatus ship = PhaseOf(h, run_id, "ship");
  EXPECT_EQ(ship.state(), v1::TASK_STATE_SKIPPED);
  EXPECT_EQ(ship.skip_reason(), "approval 'review' blocked: rejected by alice (see its decision)");
}

TEST(GateApprovalEngine, Timeout_RejectsByDefault) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  h.Advance(59'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  h.Advance(2'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_BLOCKED);
  EXPECT_EQ(h.ReadTaskView(run_id, "review").approval().decision().decided_by(), "timeout");
  EXPECT_FALSE(PhaseOf(h, run_id, "review").gate().pass());
}

TEST(GateApprovalEngine, Restart_StillWaiting_ThenDecided) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  h.Restart();
  h.RunOnce();
  EXPECT_EQ(h.ReadTaskView(run_id, "review").state(), v1::TASK_STATE_RUNNING);
  ASSERT_THAT(PendingApprovals(h), SizeIs(1));
  ASSERT_THAT(DecideApproval(h, run_id, "review", Approve({{"version", "3"}})), IsOk());
  TestWorker again = h.Connect("w2", {"coder"});
  v1::Assignment ship = h.OnlyAssignment(again);
  EXPECT_EQ(ship.prompt(), "ship 3");
  h.Finish(again, ship, true, "shipped");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

TEST(GateApprovalEngine, RestartedTimeout_StillDecides) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingGate(h, worker);
  h.Advance(30'000);
  h.Restart();
  h.RunOnce();
  h.Advance(31'000);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_BLOCKED);
}

TEST(ApprovalRoutes, Approve_SkipsTheRejectionRoute) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingDraft(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "approve", Approve()), IsOk());
  v1::PhaseStatus revise = PhaseOf(h, run_id, "revise");
  EXPECT_EQ(revise.state(), v1::TASK_STATE_SKIPPED);
  EXPECT_EQ(revise.skip_reason(), "runs only when 'approve' rejects");
  v1::Assignment publish = h.OnlyAssignment(worker);
  EXPECT_EQ(publish.task_id(), "publish");
  h.Finish(worker, publish, true, "published");
  v1::Assignment announce = h.OnlyAssignment(worker);
  EXPECT_EQ(announce.task_id(), "announce");
  h.Finish(worker, announce, true, "announced");
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "announced");
}

TEST(ApprovalRoutes, Reject_RunsTheRoute_SkipsTheRest_RunCompletes) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingDraft(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "approve", Answer("reject", "too long")), IsOk());
  v1::Assignment revise = h.OnlyAssignment(worker);
  EXPECT_EQ(revise.task_id(), "revise");
  EXPECT_EQ(revise.prompt(), "Revise per: too long\nthe draft");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING) << "a routed rejection does not block";
  for (const std::string id : {"publish", "announce"}) {
    v1::PhaseStatus phase = PhaseOf(h, run_id, id);
    EXPECT_EQ(phase.state(), v1::TASK_STATE_SKIPPED) << id;
    EXPECT_EQ(phase.skip_reason(), "approval 'approve' rejected by alice (see its decision)") << id;
  }
  h.Finish(worker, revise, true, "the shorter draft");
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_FALSE(PhaseOf(h, run_id, "approve").gate().pass());
  // The final phase (announce) was skipped: the output is the route's end.
  EXPECT_EQ(run.output(), "the shorter draft");
}

TEST(ApprovalRoutes, Resume_ReusesTheRoutedRejection) {
  EngineHarness h;
  TestWorker worker;
  std::string run_id = WaitingDraft(h, worker);
  ASSERT_THAT(DecideApproval(h, run_id, "approve", Answer("reject", "too long")), IsOk());
  h.Finish(worker, h.OnlyAssignment(worker), false, "the writer crashed");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);

  absl::StatusOr<ResumeResult> resumed = h.Resume(run_id);
  ASSERT_THAT(resumed, IsOk());
  EXPECT_THAT(resumed->reused_phases, ElementsAre("draft", "approve"));
  EXPECT_THAT(PendingApprovals(h), IsEmpty()) << "the person is not asked again";
  v1::Assignment revise = h.OnlyAssignment(worker);
  EXPECT_EQ(revise.prompt(), "Revise per: too long\nthe draft");
  h.Finish(worker, revise, true, "revised");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(PhaseOf(h, run_id, "publish").state(), v1::TASK_STATE_SKIPPED);
}

TEST(ApprovalRoutes, GateWithOnReject_RoutesLikeAnApprovalPhase) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "g", "phases": [
      {"id": "review", "type": "gate", "task": "ok?", "approval": {"onReject": "fix"}},
      {"id": "fix", "agent": "coder", "task": "fix: {steps.review.json.comment}",
       "dependsOn": ["review"]},
      {"id": "ship", "agent": "coder", "task": "ship", "dependsOn": ["review"]}]})");
  TestWorker worker = h.Connect("w1", {"coder"});
  ASSERT_THAT(DecideApproval(h, run_id, "review", Answer("reject", "tests fail")), IsOk());
  v1::Assignment fix = h.OnlyAssignment(worker);
  EXPECT_EQ(fix.prompt(), "fix: tests fail");
  EXPECT_EQ(PhaseOf(h, run_id, "ship").skip_reason(),
            "approval 'review' rejected by alice (see its decision)");
  h.Finish(worker, fix, true, "fixed");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

}  // namespace
}  // namespace taskboard::engine
