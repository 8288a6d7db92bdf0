// Plan-and-execute `approvePlan` in the engine (EngineHarness: a MemoryStore,
// a FakeClock, pretend workers): each plan waits for a person as
// `approve-plan-N` without a worker; approve runs it, reject blocks the run,
// an edited plan runs instead of the planner's (checked like the planner's),
// replans ask again, the deadline decides as onTimeout says, and restarts and
// resumes keep or ask again.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
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
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kPlan[] = R"({"tasks": [{"id": "a", "goal": "Draft"},
                                       {"id": "b", "goal": "Polish", "deps": ["a"]}]})";
constexpr char kReplanning[] =
    R"(, "evaluator": "llm", "evaluatorAgent": "planner", "enableReplanning": true)";

std::string Flow(const std::string& approve, const std::string& extra = "") {
  return R"({"name": "pe", "kind": "plan_and_execute",
      "planAndExecute": {"goal": "ship it", "plannerAgent": "planner",
                         "executorAgent": "executor", "approvePlan": )" +
         approve + extra + "}}";
}

ApprovalAnswer WithPlan(std::string plan) {
  ApprovalAnswer answer = Answer("approve", "smaller");
  answer.edited_plan = std::move(plan);
  return answer;
}

class PlanApprovalTest : public ::testing::Test {
 protected:
  // Submits, finishes the planner with `plan`; the run then waits.
  void Plan(const std::string& approve, const std::string& plan = kPlan,
            const std::string& extra = "") {
    run_ = h_.Submit(Flow(approve, extra));
    w_ = h_.Connect("w1", {"planner", "executor"}, 8);
    v1::Assignment planner = h_.OnlyAssignment(w_);
    ASSERT_EQ(planner.task_id(), "planner");
    h_.Finish(w_, planner, true, plan);
  }
  std::vector<std::string> Sent() {
    pending_ = h_.TakeAssignments(w_);
    std::vector<std::string> ids;
    for (const v1::Assignment& a : pending_) ids.push_back(a.task_id());
    return ids;
  }
  void FinishSent(const std::string& output = "done") {
    for (const v1::Assignment& a : pending_) h_.Finish(w_, a, true, output);
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::vector<v1::Assignment> pending_;
};

TEST_F(PlanApprovalTest, Waits_WithThePlanInThePrompt_Listed) {
  Plan("true");
  EXPECT_THAT(Sent(), IsEmpty()) << "no step runs before the plan is approved";
  v1::Task task = h_.ReadTaskView(run_, "approve-plan-1");
  EXPECT_EQ(task.role(), "approval");
  EXPECT_EQ(task.state(), v1::TASK_STATE_RUNNING);
  EXPECT_TRUE(task.worker_id().empty());
  const std::string& prompt = task.approval().prompt();
  EXPECT_THAT(prompt, ::testing::StartsWith("Approve the plan (2 steps) for: ship it\n"));
  EXPECT_THAT(prompt, HasSubstr("\n1. a: Draft\n2. b: Polish (after a)\n"));
  EXPECT_THAT(prompt, HasSubstr(R"("id": "b")"));
  EXPECT_EQ(h_.ReadRunView(run_).board_meta(), "approving");
  std::vector<v1::PendingApproval> pending = PendingApprovals(h_);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].step_id(), "approve-plan-1");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_RUNNING);
}

TEST_F(PlanApprovalTest, Approved_ThePlanRuns) {
  Plan("true");
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("approve")), IsOk());
  ASSERT_THAT(Sent(), ElementsAre("a"));
  FinishSent();
  ASSERT_THAT(Sent(), ElementsAre("b"));
  FinishSent();
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(PendingApprovals(h_), IsEmpty());
}

TEST_F(PlanApprovalTest, Rejected_RunBlockedWithTheComment) {
  Plan("true");
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("reject", "too broad")), IsOk());
  EXPECT_THAT(Sent(), IsEmpty());
  v1::Run run = h_.ReadRunView(run_);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(run.error(),
              HasSubstr("plan approval 'approve-plan-1' rejected by alice: too broad"));
}

TEST_F(PlanApprovalTest, EditedPlan_RunsInsteadOfThePlanners) {
  Plan("true");
  absl::StatusOr<v1::Task> decided = DecideApproval(
      h_, run_, "approve-plan-1", WithPlan(R"({"tasks": [{"id": "only", "goal": "Just this"}]})"));
  ASSERT_THAT(decided, IsOk());
  EXPECT_THAT(decided->approval().decision().edited_plan(), HasSubstr("Just this"));
  ASSERT_THAT(Sent(), ElementsAre("only"));
  EXPECT_THAT(pending_[0].prompt(), HasSubstr("Just this"));
  FinishSent();
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadTaskView(run_, "only").title(), "Just this");
  EXPECT_FALSE(ReadTask(h_.store(), run_, "a").ok()) << "the planner's steps do not run";
}

TEST_F(PlanApprovalTest, InvalidEditedPlan_RefusedAndStillWaiting) {
  Plan("true");
  EXPECT_THAT(
      DecideApproval(h_, run_, "approve-plan-1", WithPlan("not json")),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the edited plan is invalid: ")));
  EXPECT_THAT(
      DecideApproval(h_, run_, "approve-plan-1",
                     WithPlan(R"({"tasks": [{"id": "x", "goal": "X", "deps": ["nope"]}]})")),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nope")));
  ApprovalAnswer rejecting = WithPlan(R"({"tasks": []})");
  rejecting.decision = "reject";
  EXPECT_THAT(
      DecideApproval(h_, run_, "approve-plan-1", rejecting),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("an edited plan goes with approve")));
  ASSERT_THAT(PendingApprovals(h_), SizeIs(1));
  EXPECT_THAT(Sent(), IsEmpty());
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("approve")), IsOk());
  EXPECT_THAT(Sent(), ElementsAre("a"));
}

TEST_F(PlanApprovalTest, EditedPlanOverTheLimit_NamesTheLimit) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_plan_tasks = 1;
  EngineHarness h(options);
  std::string run_id = h.Submit(Flow("true"));
  TestWorker w = h.Connect("w1", {"planner", "executor"}, 8);
  h.Finish(w, h.OnlyAssignment(w), true, R"({"tasks": [{"id": "a", "goal": "A"}]})");
  EXPECT_THAT(DecideApproval(h, run_id, "approve-plan-1", WithPlan(kPlan)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--max-plan-tasks")));
}

TEST_F(PlanApprovalTest, EditedPlanOnAnApprovalPhase_IsRefused) {
  std::string run_id = h_.Submit(R"({"name": "t", "phases": [
      {"id": "ok", "type": "approval", "prompt": "go?"}]})");
  EXPECT_THAT(DecideApproval(h_, run_id, "ok", WithPlan(kPlan)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not ask about a plan")));
  EXPECT_THAT(PendingApprovals(h_), SizeIs(1));
}

TEST_F(PlanApprovalTest, Replan_AsksAgainForTheNewSteps) {
  Plan("true", R"({"tasks": [{"id": "a", "goal": "A"}]})", kReplanning);
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("approve")), IsOk());
  ASSERT_THAT(Sent(), ElementsAre("a"));
  FinishSent();
  ASSERT_THAT(Sent(), ElementsAre("evaluator-1"));
  h_.Finish(w_, pending_[0], true,
            R"({"decision": "replan", "reasoning": "tests", "tasks": [
                {"id": "t", "goal": "Test", "deps": ["a"]}]})");
  EXPECT_THAT(Sent(), IsEmpty());
  v1::Task second = h_.ReadTaskView(run_, "approve-plan-2");
  EXPECT_EQ(second.state(), v1::TASK_STATE_RUNNING);
  EXPECT_THAT(second.approval().prompt(),
              ::testing::StartsWith("Approve the steps a replan adds (1 step) for: ship it"));
  // An edited replan is checked against the plan it joins.
  EXPECT_THAT(DecideApproval(h_, run_, "approve-plan-2",
                             WithPlan(R"({"tasks": [{"id": "u", "goal": "U", "deps": ["zz"]}]})")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("task 'u' depends on 'zz', which is not in the plan")));
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-2",
                             WithPlan(R"({"tasks": [{"id": "u", "goal": "U", "deps": ["a"]}]})")),
              IsOk());
  ASSERT_THAT(Sent(), ElementsAre("u"));
  FinishSent();
  ASSERT_THAT(Sent(), ElementsAre("evaluator-2"));
  h_.Finish(w_, pending_[0], true, R"({"decision": "complete", "reasoning": "ok"})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
}

TEST_F(PlanApprovalTest, Timeout_Approve_ThePlanRuns) {
  Plan(R"({"timeoutSeconds": 60, "onTimeout": "approve"})");
  h_.Advance(59'000);
  EXPECT_THAT(Sent(), IsEmpty());
  h_.Advance(2'000);
  EXPECT_THAT(Sent(), ElementsAre("a"));
  EXPECT_EQ(h_.ReadTaskView(run_, "approve-plan-1").approval().decision().decided_by(), "timeout");
}

TEST_F(PlanApprovalTest, Timeout_DefaultRejects_Blocked) {
  Plan(R"({"timeoutSeconds": 60})");
  h_.Advance(61'000);
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
}

TEST_F(PlanApprovalTest, Timeout_Fail_FailsTheRunNamingTheApproval) {
  Plan(R"({"timeoutSeconds": 60, "onTimeout": "fail"})");
  h_.Advance(61'000);
  v1::Run run = h_.ReadRunView(run_);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(), HasSubstr("approval 'approve-plan-1' failed: no decision within"));
}

TEST_F(PlanApprovalTest, Restart_StillWaiting_ThenApproved) {
  Plan(R"({"timeoutSeconds": 600})");
  h_.Restart();
  h_.RunOnce();
  ASSERT_THAT(PendingApprovals(h_), SizeIs(1));
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("approve")), IsOk());
  TestWorker again = h_.Connect("w2", {"executor"}, 8);
  EXPECT_EQ(h_.OnlyAssignment(again).task_id(), "a");
}

TEST_F(PlanApprovalTest, ResumeAfterRejection_AsksAgain) {
  Plan("true");
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("reject", "no")), IsOk());
  ASSERT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
  ASSERT_THAT(h_.Resume(run_), IsOk());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(Sent(), IsEmpty());
  ASSERT_THAT(PendingApprovals(h_), SizeIs(1));
  EXPECT_FALSE(h_.ReadTaskView(run_, "approve-plan-1").approval().has_decision());
  ASSERT_THAT(DecideApproval(h_, run_, "approve-plan-1", Answer("approve")), IsOk());
  EXPECT_THAT(Sent(), ElementsAre("a"));
}

TEST_F(PlanApprovalTest, WithoutApprovePlan_NoApprovalTask) {
  run_ = h_.Submit(R"({"name": "pe", "kind": "plan_and_execute",
      "planAndExecute": {"goal": "g", "plannerAgent": "planner", "executorAgent": "executor"}})");
  w_ = h_.Connect("w1", {"planner", "executor"}, 8);
  h_.Finish(w_, h_.OnlyAssignment(w_), true, kPlan);
  EXPECT_THAT(Sent(), ElementsAre("a"));
  EXPECT_THAT(PendingApprovals(h_), IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
