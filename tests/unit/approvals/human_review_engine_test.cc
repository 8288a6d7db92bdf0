// Supervisor `onEscalate: human` in the engine (EngineHarness): each task the
// reviewer escalates waits for a person as `review-<task>-<N>` without a
// worker; approve accepts it (its result reaches the synthesizer), reject
// keeps it escalated (the run ends blocked as without a person), `revise`
// sends it back with the person's comment as feedback, the deadline decides
// as onTimeout says, and without `human` nothing changes.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
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
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

constexpr char kHuman[] = R"(, "onEscalate": "human")";
constexpr char kTwoTasks[] = R"({"tasks": [{"id": "intro", "goal": "Intro"},
                                           {"id": "api", "goal": "API"}]})";
constexpr char kEscalateApi[] =
    R"({"assessments": [{"task_id": "intro", "verdict": "accepted"},
        {"task_id": "api", "verdict": "escalate", "feedback": "needs a human"}]})";

std::string Flow(const std::string& extra) {
  return R"({"name": "sup", "kind": "supervisor",
      "supervisor": {"goal": "write docs", "plannerAgent": "lead", "workerAgent": "writer",
                     "reviewerAgent": "lead", "synthesizerAgent": "synth")" +
         extra + "}}";
}

class HumanReviewTest : public ::testing::Test {
 protected:
  // Plans two tasks, finishes them and the first review (api escalated).
  void EscalateApi(const std::string& extra = kHuman) {
    run_ = h_.Submit(Flow(extra));
    w_ = h_.Connect("w1", {"lead", "writer", "synth"}, 8);
    h_.Finish(w_, h_.OnlyAssignment(w_), true, kTwoTasks);
    ASSERT_THAT(Sent(), UnorderedElementsAre("intro", "api"));
    h_.Finish(w_, Task("intro"), true, "intro text");
    h_.Finish(w_, Task("api"), true, "api text");
    ASSERT_THAT(Sent(), ElementsAre("reviewer-1"));
    h_.Finish(w_, Task("reviewer-1"), true, kEscalateApi);
  }
  std::vector<std::string> Sent() {
    pending_ = h_.TakeAssignments(w_);
    std::vector<std::string> ids;
    for (const v1::Assignment& a : pending_) ids.push_back(a.task_id());
    return ids;
  }
  v1::Assignment Task(const std::string& id) {
    for (const v1::Assignment& a : pending_) {
      if (a.task_id() == id) return a;
    }
    ADD_FAILURE() << "no assignment for " << id;
    return {};
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::vector<v1::Assignment> pending_;
};

TEST_F(HumanReviewTest, Escalation_WaitsForAPersonWithGoalResultAndFeedback) {
  EscalateApi();
  EXPECT_THAT(Sent(), IsEmpty()) << "nothing runs while a person reviews";
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_RUNNING);
  v1::Task review = h_.ReadTaskView(run_, "review-api-1");
  EXPECT_EQ(review.role(), "approval");
  EXPECT_EQ(review.state(), v1::TASK_STATE_RUNNING);
  EXPECT_TRUE(review.worker_id().empty());
  EXPECT_THAT(review.approval().choices(), ElementsAre("revise"));
  const std::string& prompt = review.approval().prompt();
  EXPECT_THAT(prompt, ::testing::StartsWith("Review the escalated task 'api': API\n"));
  EXPECT_THAT(prompt, HasSubstr("api text"));
  EXPECT_THAT(prompt, HasSubstr("The reviewer escalated it: needs a human"));
  EXPECT_EQ(h_.ReadRunView(run_).board_meta(), "human-review");
  std::vector<v1::PendingApproval> pending = PendingApprovals(h_);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].step_id(), "review-api-1");
}

TEST_F(HumanReviewTest, Approve_AcceptedAndSynthesized) {
  EscalateApi();
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("approve", "fine by me")), IsOk());
  ASSERT_THAT(Sent(), ElementsAre("synthesizer"));
  EXPECT_THAT(Task("synthesizer").prompt(), HasSubstr("api text"));
  EXPECT_THAT(Task("synthesizer").prompt(), HasSubstr("intro text"));
  h_.Finish(w_, Task("synthesizer"), true, "the docs");
  v1::Run run = h_.ReadRunView(run_);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "the docs");
  const v1::Task api = h_.ReadTaskView(run_, "api");
  EXPECT_EQ(api.reviews(api.reviews_size() - 1).verdict(), "accepted");
  EXPECT_EQ(api.reviews(api.reviews_size() - 1).feedback(), "approved by alice: fine by me");
}

TEST_F(HumanReviewTest, Reject_StaysEscalated_RunBlocked) {
  EscalateApi();
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("reject", "agree, escalate")),
              IsOk());
  EXPECT_THAT(Sent(), IsEmpty());
  v1::Run run = h_.ReadRunView(run_);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(run.error(), HasSubstr("the reviewer escalated api: needs a human"));
}

TEST_F(HumanReviewTest, Revise_RedispatchedWithTheCommentAsFeedback) {
  EscalateApi();
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("choice", "add examples", "revise")),
              IsOk());
  // The planner rewrites the goal from the feedback, then the worker runs.
  ASSERT_THAT(Sent(), ElementsAre("planner-2"));
  EXPECT_THAT(Task("planner-2").prompt(), HasSubstr("add examples"));
  h_.Finish(w_, Task("planner-2"), true, R"({"tasks": [{"id": "api", "goal": "API v2"}]})");
  ASSERT_THAT(Sent(), ElementsAre("api"));
  EXPECT_THAT(Task("api").prompt(), HasSubstr("previous result: add examples"));
  EXPECT_THAT(Task("api").input_json(), HasSubstr(R"("feedback":"add examples")"));
  h_.Finish(w_, Task("api"), true, "api with examples");
  ASSERT_THAT(Sent(), ElementsAre("reviewer-2"));
  h_.Finish(w_, Task("reviewer-2"), true,
            R"({"assessments": [{"task_id": "api", "verdict": "accepted"}]})");
  ASSERT_THAT(Sent(), ElementsAre("synthesizer"));
  EXPECT_THAT(Task("synthesizer").prompt(), HasSubstr("api with examples"));
}

TEST_F(HumanReviewTest, SeveralEscalations_WaitsForEveryReview) {
  run_ = h_.Submit(Flow(kHuman));
  w_ = h_.Connect("w1", {"lead", "writer", "synth"}, 8);
  h_.Finish(w_, h_.OnlyAssignment(w_), true, kTwoTasks);
  Sent();
  h_.Finish(w_, Task("intro"), true, "intro text");
  h_.Finish(w_, Task("api"), true, "api text");
  Sent();
  h_.Finish(w_, Task("reviewer-1"), true,
            R"({"assessments": [{"task_id": "intro", "verdict": "escalate", "feedback": "?"},
                {"task_id": "api", "verdict": "escalate", "feedback": "??"}]})");
  ASSERT_THAT(PendingApprovals(h_), SizeIs(2));
  ASSERT_THAT(DecideApproval(h_, run_, "review-intro-1", Answer("approve")), IsOk());
  EXPECT_THAT(Sent(), IsEmpty()) << "the other review still waits";
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_RUNNING);
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("approve")), IsOk());
  EXPECT_THAT(Sent(), ElementsAre("synthesizer"));
}

TEST_F(HumanReviewTest, Timeout_AsOnTimeoutSays) {
  EscalateApi(R"(, "onEscalate": "human",
                 "humanReview": {"timeoutSeconds": 60, "onTimeout": "approve"})");
  h_.Advance(61'000);
  EXPECT_THAT(Sent(), ElementsAre("synthesizer"));
}

TEST_F(HumanReviewTest, Timeout_DefaultRejects_Blocked) {
  EscalateApi(R"(, "onEscalate": "human", "humanReview": {"timeoutSeconds": 60})");
  h_.Advance(61'000);
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
}

TEST_F(HumanReviewTest, Timeout_Fail_FailsTheRunNamingTheReview) {
  EscalateApi(R"(, "onEscalate": "human",
                 "humanReview": {"timeoutSeconds": 60, "onTimeout": "fail"})");
  h_.Advance(61'000);
  v1::Run run = h_.ReadRunView(run_);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run.error(), HasSubstr("approval 'review-api-1' failed: no decision within"));
}

TEST_F(HumanReviewTest, Restart_StillWaiting) {
  EscalateApi();
  h_.Restart();
  h_.RunOnce();
  ASSERT_THAT(PendingApprovals(h_), SizeIs(1));
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("approve")), IsOk());
  TestWorker again = h_.Connect("w2", {"synth"}, 8);
  EXPECT_EQ(h_.OnlyAssignment(again).task_id(), "synthesizer");
}

TEST_F(HumanReviewTest, ResumeAfterReject_RerunsTheTaskWithTheFeedback) {
  EscalateApi();
  ASSERT_THAT(DecideApproval(h_, run_, "review-api-1", Answer("reject")), IsOk());
  ASSERT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
  ASSERT_THAT(h_.Resume(run_), IsOk());
  ASSERT_THAT(Sent(), ElementsAre("api"));
  EXPECT_THAT(Task("api").prompt(), HasSubstr("needs a human"));
  h_.Finish(w_, Task("api"), true, "api again");
  ASSERT_THAT(Sent(), ElementsAre("reviewer-2"));
  h_.Finish(w_, Task("reviewer-2"), true,
            R"({"assessments": [{"task_id": "api", "verdict": "escalate", "feedback": "still"}]})");
  // The next round's escalation is a new review.
  std::vector<v1::PendingApproval> pending = PendingApprovals(h_);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].step_id(), "review-api-2");
}

TEST_F(HumanReviewTest, WithoutHuman_EscalationBlocksAsBefore) {
  EscalateApi("");
  EXPECT_THAT(PendingApprovals(h_), IsEmpty());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
}

TEST_F(HumanReviewTest, OnEscalateReport_EscalationBlocksAsBefore) {
  EscalateApi(R"(, "onEscalate": "report")");
  EXPECT_THAT(PendingApprovals(h_), IsEmpty());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), Not(HasSubstr("review-")));
}

}  // namespace
}  // namespace taskboard::engine
