// ResumeRun of pattern runs (pattern_resume.h, decision 77): at every point
// a plan-and-execute or supervisor run can stop (its planner, a step or
// worker, an evaluator, a reviewer, an escalation, the synthesizer, a
// cancel), a resume runs exactly what did not complete, keeps what did (no
// second assignment of a completed task), and the run completes. A nested
// child run is resumed under its own id.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr char kPlanFlow[] = R"({"name": "pe", "kind": "plan_and_execute",
    "planAndExecute": {"goal": "ship it", "plannerAgent": "lead", "executorAgent": "dev",
                       "evaluator": "llm", "evaluatorAgent": "lead",
                       "synthesizerAgent": "lead"}})";
constexpr char kTwoSteps[] = R"({"tasks": [{"id": "a", "goal": "A"},
                                           {"id": "b", "goal": "B", "deps": ["a"]}]})";
constexpr char kNoEvaluatorFlow[] = R"({"name": "pe", "kind": "plan_and_execute",
    "planAndExecute": {"goal": "ship it", "plannerAgent": "lead", "executorAgent": "dev",
                       "synthesizerAgent": "lead"}})";
constexpr char kDone[] = R"({"summary": "done", "success": true})";

constexpr char kSupervisorFlow[] = R"({"name": "sup", "kind": "supervisor",
    "supervisor": {"goal": "write docs", "plannerAgent": "lead", "workerAgent": "dev",
                   "reviewerAgent": "lead", "synthesizerAgent": "lead",
                   "onSubTaskError": "fail"}})";
constexpr char kTwoTasks[] = R"({"tasks": [{"id": "intro", "goal": "Intro"},
                                           {"id": "api", "goal": "API"}]})";
constexpr char kBothAccepted[] = R"({"assessments": [
    {"task_id": "intro", "verdict": "accepted"}, {"task_id": "api", "verdict": "accepted"}]})";

class PatternResumeTest : public ::testing::Test {
 protected:
  void Submit(const char* flow) {
    run_ = h_.Submit(flow);
    w_ = h_.Connect("w1", {"lead", "dev"}, 8);
  }
  // The ids of the assignments sent since the last call; every one is
  // remembered for Answer.
  std::vector<std::string> Sent() {
    std::vector<std::string> ids;
    for (v1::Assignment& a : h_.TakeAssignments(w_)) {
      ids.push_back(a.task_id());
      sent_.push_back(a.task_id());
      pending_[a.task_id()] = std::move(a);
    }
    return ids;
  }
  void Answer(const std::string& id, bool success, const std::string& text) {
    if (!pending_.contains(id)) Sent();
    ASSERT_TRUE(pending_.contains(id)) << "no assignment for " << id;
    v1::Assignment assignment = pending_[id];
    pending_.erase(id);
    h_.Finish(w_, assignment, success, text);
  }
  // How many times `id` was assigned over the whole test.
  int Assigned(const std::string& id) const {
    return static_cast<int>(std::count(sent_.begin(), sent_.end(), id));
  }
  v1::RunStatus Status() { return h_.Status(run_); }
  void Resume() {
    ASSERT_THAT(h_.Resume(run_), IsOk());
    EXPECT_EQ(Status(), v1::RUN_STATUS_RUNNING);
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::map<std::string, v1::Assignment> pending_;
  std::vector<std::string> sent_;
};

// Plan-and-execute --------------------------------------------------------

TEST_F(PatternResumeTest, Plan_PlannerFailed_ResumeAsksThePlannerAgain) {
  Submit(kPlanFlow);
  Answer("planner", false, "model down");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("planner failed: model down"));
  Resume();
  Answer("planner", true, kTwoSteps);
  Answer("a", true, kDone);
  Answer("b", true, kDone);
  Answer("evaluator-1", true, R"({"decision": "complete"})");
  Answer("synthesizer", true, "final");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(run_).output(), "final");
  EXPECT_EQ(Assigned("planner"), 2);
}

TEST_F(PatternResumeTest, Plan_StepFailed_ResumeRunsOnlyTheFailedAndSkippedSteps) {
  // A plan with a completed step completes (docs/semantics.md#plan-and-execute); one whose steps
  // all failed or were skipped fails, and resumes.
  Submit(kNoEvaluatorFlow);
  Answer("planner", true, kTwoSteps);
  Answer("a", false, "crashed");
  EXPECT_FALSE(h_.ReadTaskView(run_, "b").skip_reason().empty());
  Answer("synthesizer", true, "nothing worked");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  Resume();
  Answer("a", true, kDone);
  Answer("b", true, kDone);
  // The synthesizer judged the failed plan: it runs again over the new results.
  Answer("synthesizer", true, "final");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(run_).output(), "final");
  EXPECT_EQ(Assigned("planner"), 1);
  EXPECT_EQ(Assigned("a"), 2);
  EXPECT_EQ(Assigned("b"), 1);
}

TEST_F(PatternResumeTest, Plan_CancelledMidway_ResumeKeepsTheCompletedStep) {
  Submit(kPlanFlow);
  Answer("planner", true, kTwoSteps);
  Answer("a", true, kDone);
  ASSERT_THAT(Sent(), ElementsAre("b"));
  ASSERT_THAT(h_.Cancel(run_, "stop"), IsOk());
  pending_.clear();
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("b"));
  Answer("b", true, kDone);
  Answer("evaluator-1", true, R"({"decision": "complete"})");
  Answer("synthesizer", true, "final");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("a"), 1);
  EXPECT_EQ(Assigned("b"), 2);
}

TEST_F(PatternResumeTest, Plan_EvaluatorFailed_FailsKeepingThePlanAndResumeAsksItAgain) {
  Submit(kPlanFlow);
  Answer("planner", true, kTwoSteps);
  Answer("a", true, kDone);
  Answer("b", true, kDone);
  Answer("evaluator-1", false, "timeout");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("evaluator failed: timeout"));
  EXPECT_THAT(h_.ReadRunView(run_).output(), HasSubstr("\"completed_steps\":2"));
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("evaluator-1"));
  Answer("evaluator-1", true, R"({"decision": "complete"})");
  Answer("synthesizer", true, "final");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("a"), 1);
  EXPECT_EQ(Assigned("b"), 1);
}

TEST_F(PatternResumeTest, Plan_SynthesizerFailed_ResumeRunsOnlyTheSynthesizer) {
  Submit(kPlanFlow);
  Answer("planner", true, kTwoSteps);
  Answer("a", true, kDone);
  Answer("b", true, kDone);
  Answer("evaluator-1", true, R"({"decision": "complete"})");
  Answer("synthesizer", false, "quota");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("synthesizer failed: quota"));
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("synthesizer"));
  Answer("synthesizer", true, "final");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("evaluator-1"), 1);
}

TEST_F(PatternResumeTest, CompletedRun_ResumeIsAClearNoOp) {
  Submit(kNoEvaluatorFlow);
  Answer("planner", true, R"({"tasks": []})");
  Answer("synthesizer", true, "nothing to do");
  ASSERT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(h_.Resume(run_),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("already completed: there is nothing to resume")));
}

// Supervisor ---------------------------------------------------------------

TEST_F(PatternResumeTest, Supervisor_WorkerFailed_ResumeRerunsOnlyThatWorker) {
  Submit(kSupervisorFlow);
  Answer("planner", true, kTwoTasks);
  Answer("intro", true, "intro text");
  Answer("api", false, "crashed");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("api"));
  Answer("api", true, "api text");
  Answer("reviewer-1", true, kBothAccepted);
  Answer("synthesizer", true, "docs");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("intro"), 1);
}

TEST_F(PatternResumeTest, Supervisor_FailsWhileAWorkerRuns_ThatWorkerIsCancelledAndStopped) {
  Submit(kSupervisorFlow);
  Answer("planner", true, kTwoTasks);
  ASSERT_THAT(Sent(), UnorderedElementsAre("intro", "api"));
  const std::string intro_lease = pending_["intro"].lease_id();
  Answer("api", false, "crashed");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  // A failed run keeps no task running, and the worker is told to stop.
  EXPECT_EQ(h_.ReadTaskView(run_, "intro").state(), v1::TASK_STATE_CANCELLED);
  std::vector<std::string> cancelled;
  for (const v1::Cancel& cancel : EngineHarness::Cancels(w_.channel->Take())) {
    cancelled.push_back(cancel.lease_id());
  }
  EXPECT_THAT(cancelled, ElementsAre(intro_lease));
  pending_.clear();
  Resume();
  EXPECT_THAT(Sent(), UnorderedElementsAre("intro", "api"));
}

TEST_F(PatternResumeTest, Supervisor_ReviewerFailed_ResumeAsksTheReviewerAgain) {
  Submit(kSupervisorFlow);
  Answer("planner", true, kTwoTasks);
  Answer("intro", true, "intro text");
  Answer("api", true, "api text");
  Answer("reviewer-1", false, "overloaded");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("reviewer failed: overloaded"));
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("reviewer-1"));
  Answer("reviewer-1", true, kBothAccepted);
  Answer("synthesizer", true, "docs");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("intro"), 1);
  EXPECT_EQ(Assigned("api"), 1);
}

TEST_F(PatternResumeTest, Supervisor_Escalated_BlocksAndResumeRerunsTheEscalatedTask) {
  Submit(kSupervisorFlow);
  Answer("planner", true, kTwoTasks);
  Answer("intro", true, "intro text");
  Answer("api", true, "api text");
  Answer("reviewer-1", true, R"({"assessments": [{"task_id": "intro", "verdict": "accepted"},
      {"task_id": "api", "verdict": "escalate", "feedback": "ask legal"}]})");
  ASSERT_EQ(Status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(Sent(), IsEmpty());  // no synthesizer while a task waits for a person
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("api"));
  EXPECT_THAT(pending_["api"].prompt(), HasSubstr("ask legal"));
  Answer("api", true, "api text, cleared");
  Answer("reviewer-2", true, R"([{"task_id": "api", "verdict": "accepted"}])");
  Answer("synthesizer", true, "docs");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("intro"), 1);
}

TEST_F(PatternResumeTest, Supervisor_SynthesizerFailed_ResumeRunsOnlyTheSynthesizer) {
  Submit(kSupervisorFlow);
  Answer("planner", true, kTwoTasks);
  Answer("intro", true, "intro text");
  Answer("api", true, "api text");
  Answer("reviewer-1", true, kBothAccepted);
  Answer("synthesizer", false, "quota");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("synthesizer"));
  Answer("synthesizer", true, "docs");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("reviewer-1"), 1);
}

TEST_F(PatternResumeTest, Supervisor_CancelledWhilePlanning_ResumeAsksThePlannerAgain) {
  Submit(kSupervisorFlow);
  ASSERT_THAT(Sent(), ElementsAre("planner"));
  ASSERT_THAT(h_.Cancel(run_, "later"), IsOk());
  pending_.clear();
  Resume();
  EXPECT_THAT(Sent(), ElementsAre("planner"));
  Answer("planner", true, R"({"tasks": [{"id": "intro", "goal": "Intro"}]})");
  Answer("intro", true, "intro text");
  Answer("reviewer-1", true, R"([{"task_id": "intro", "verdict": "accepted"}])");
  Answer("synthesizer", true, "docs");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
}

TEST_F(PatternResumeTest, Supervisor_NeedsReplanning_PlansTheRemainingWorkAgainOnce) {
  Submit(R"({"name": "sup", "kind": "supervisor",
      "supervisor": {"goal": "write docs", "plannerAgent": "lead", "workerAgent": "dev",
                     "reviewerAgent": "lead", "maxReplans": 1}})");
  Answer("planner", true, R"({"tasks": [{"id": "intro", "goal": "Intro"}]})");
  Answer("intro", true, "intro text");
  Answer("reviewer-1", true, R"({"assessments": [{"task_id": "intro", "verdict": "accepted"}],
      "needs_replanning": true, "overall_assessment": "the docs lack an API section"})");
  ASSERT_THAT(Sent(), ElementsAre("planner-2"));
  EXPECT_THAT(pending_["planner-2"].prompt(), HasSubstr("the docs lack an API section"));
  Answer("planner-2", true, R"({"tasks": [{"id": "api", "goal": "API"}]})");
  EXPECT_THAT(Sent(), ElementsAre("api"));
  Answer("api", true, "api text");
  // At maxReplans, needs_replanning is not acted on again.
  Answer("reviewer-2", true, R"({"assessments": [{"task_id": "api", "verdict": "accepted"}],
      "needs_replanning": true})");
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Assigned("intro"), 1);
}

// Nested -------------------------------------------------------------------

TEST_F(PatternResumeTest, NestedSupervisorStep_ResumeResumesTheSameChildRun) {
  Submit(R"({"name": "pe", "kind": "plan_and_execute",
      "planAndExecute": {"goal": "ship it", "plannerAgent": "lead",
        "stepExecutor": {"plannerAgent": "lead", "workerAgent": "dev", "reviewerAgent": "lead",
                         "onSubTaskError": "fail"}}})");
  Answer("planner", true, R"({"tasks": [{"id": "s", "goal": "Step"}]})");
  Answer("planner", true, kTwoTasks);  // the child's planner
  Answer("intro", true, "intro text");
  Answer("api", false, "crashed");
  ASSERT_EQ(Status(), v1::RUN_STATUS_FAILED);
  const v1::Run parent = h_.ReadRunView(run_);
  ASSERT_EQ(parent.child_run_ids_size(), 1);
  const std::string child = parent.child_run_ids(0);
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_FAILED);

  Resume();
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(Sent(), ElementsAre("api"));
  Answer("api", true, "api text");
  Answer("reviewer-1", true, kBothAccepted);
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h_.ReadRunView(run_).child_run_ids_size(), 1);
  EXPECT_EQ(Assigned("intro"), 1);
}

}  // namespace
}  // namespace taskboard::engine
