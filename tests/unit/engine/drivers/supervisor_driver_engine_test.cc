// The supervisor driver through the engine and the worker protocol
// (docs/semantics.md#supervisor): planning, concurrent workers, reviews with accepted /
// needs-revision / escalate verdicts, revision with feedback, max
// iterations, worker-failure modes and the synthesizer.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

std::string Flow(const std::string& extra = "") {
  return R"({"name": "sup", "kind": "supervisor", "maxAttemptsPerTask": 2,
      "supervisor": {"goal": "write docs", "plannerAgent": "lead", "workerAgent": "writer",
                     "reviewerAgent": "lead", "reviewCriteria": ["has examples"])" +
         extra + "}}";
}

class SupervisorTest : public ::testing::Test {
 protected:
  void Plan(const std::string& plan, const std::string& extra = "") {
    run_ = h_.Submit(Flow(extra));
    w_ = h_.Connect("w1", {"lead", "writer", "synth"}, 8);
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
  v1::Assignment Task(const std::string& id) {
    for (const v1::Assignment& a : pending_) {
      if (a.task_id() == id) return a;
    }
    ADD_FAILURE() << "no assignment for " << id;
    return {};
  }
  // Both workers of kTwoTasks answer; the reviewer's assignment is pending.
  void FinishRoundOne() {
    Sent();
    v1::Assignment api = Task("api");
    h_.Finish(w_, Task("intro"), true, "intro text");
    h_.Finish(w_, api, true, "api text");
    ASSERT_THAT(Sent(), ElementsAre("reviewer-1"));
  }
  Json Output() {
    absl::StatusOr<Json> output = ParseJson(h_.ReadRunView(run_).output());
    EXPECT_TRUE(output.ok()) << h_.ReadRunView(run_).output();
    return output.ok() ? *output : Json();
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::vector<v1::Assignment> pending_;
};

constexpr char kTwoTasks[] = R"({"tasks": [{"id": "intro", "goal": "Intro"},
                                           {"id": "api", "goal": "API"}]})";

TEST_F(SupervisorTest, AllAccepted_CompletesWithTheReport) {
  Plan(kTwoTasks);
  ASSERT_THAT(Sent(), ElementsAre("intro", "api"));
  EXPECT_EQ(Task("api").role(), "worker");
  v1::Assignment api = Task("api");
  h_.Finish(w_, Task("intro"), true, "intro text");
  h_.Finish(w_, api, true, "api text");
  ASSERT_THAT(Sent(), ElementsAre("reviewer-1"));
  EXPECT_THAT(Task("reviewer-1").prompt(), HasSubstr("has examples"));
  EXPECT_THAT(Task("reviewer-1").prompt(), HasSubstr("api text"));
  h_.Finish(w_, Task("reviewer-1"), true,
            R"({"assessments": [{"task_id": "intro", "verdict": "accepted", "score": 0.9},
                                {"task_id": "api", "verdict": "accepted", "score": 0.8}]})");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["accepted"], 2);
  EXPECT_EQ(h_.ReadRunView(run_).kind(), v1::FLOW_KIND_SUPERVISOR);
}

TEST_F(SupervisorTest, JsonWorkerResults_StayJsonInTheReport) {
  Plan(R"({"tasks": [{"id": "api", "goal": "API"}]})");
  Sent();
  h_.Finish(w_, Task("api"), true, R"({"endpoints": ["/runs", "/tasks"]})");
  Sent();
  h_.Finish(w_, Task("reviewer-1"), true, R"([{"task_id": "api", "verdict": "accepted"}])");
  ASSERT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["tasks"][0]["result"]["endpoints"][1], "/tasks");
}

TEST_F(SupervisorTest, NeedsRevision_RevisedWithFeedbackThenAccepted) {
  Plan(kTwoTasks);
  FinishRoundOne();
  h_.Finish(w_, Task("reviewer-1"), true,
            R"({"assessments": [{"task_id": "intro", "verdict": "accepted"},
                {"task_id": "api", "verdict": "needs-revision", "feedback": "add an example"}]})");
  ASSERT_THAT(Sent(), ElementsAre("planner-2"));
  EXPECT_THAT(Task("planner-2").prompt(), HasSubstr("add an example"));
  h_.Finish(w_, Task("planner-2"), true,
            R"({"tasks": [{"id": "api", "goal": "API with a worked example"}]})");
  ASSERT_THAT(Sent(), ElementsAre("api"));
  EXPECT_THAT(Task("api").prompt(), HasSubstr("API with a worked example"));
  EXPECT_THAT(Task("api").prompt(), HasSubstr("add an example"));
  h_.Finish(w_, Task("api"), true, "api text with example");
  ASSERT_THAT(Sent(), ElementsAre("reviewer-2"));
  EXPECT_THAT(Task("reviewer-2").prompt(), Not(HasSubstr("intro text")));
  h_.Finish(w_, Task("reviewer-2"), true,
            R"([{"task_id": "api", "verdict": "accepted", "feedback": "good"}])");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  const v1::Task stored = h_.ReadTaskView(run_, "api");
  ASSERT_THAT(stored.reviews(), SizeIs(2));
  EXPECT_EQ(stored.reviews(0).verdict(), "needs-revision");
  EXPECT_EQ(stored.reviews(1).verdict(), "accepted");
  EXPECT_EQ(stored.reviews(1).iteration(), 2);
  // The result sent back is an earlier attempt, rejected with the feedback.
  ASSERT_THAT(stored.earlier_attempts(), SizeIs(1));
  EXPECT_EQ(stored.earlier_attempts(0).attempt(), 1);
  EXPECT_EQ(stored.earlier_attempts(0).worker_id(), "w1");
  EXPECT_EQ(stored.earlier_attempts(0).ended(), "rejected");
  EXPECT_EQ(stored.earlier_attempts(0).detail(), "add an example");
}

TEST_F(SupervisorTest, Escalated_StopsBlockedAndIsReported) {
  Plan(kTwoTasks);
  FinishRoundOne();
  h_.Finish(w_, Task("reviewer-1"), true,
            R"({"assessments": [{"task_id": "intro", "verdict": "accepted"},
                {"task_id": "api", "verdict": "escalate", "feedback": "needs a human"}]})");
  EXPECT_THAT(Sent(), IsEmpty());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("the reviewer escalated api: needs a human"));
  EXPECT_EQ(Output()["tasks"][1]["id"], "api");
  EXPECT_EQ(Output()["tasks"][1]["status"], "escalated");
  EXPECT_EQ(Output()["tasks"][1]["feedback"], "needs a human");
}

TEST_F(SupervisorTest, MaxIterations_LeavesNeedsRevisionUnaccepted) {
  Plan(R"({"tasks": [{"id": "api", "goal": "API"}]})", R"(, "maxIterations": 1)");
  Sent();
  h_.Finish(w_, Task("api"), true, "api text");
  Sent();
  h_.Finish(w_, Task("reviewer-1"), true,
            R"([{"task_id": "api", "verdict": "needs-revision", "feedback": "thin"}])");
  EXPECT_THAT(Sent(), IsEmpty());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(h_.ReadRunView(run_).error(), "no task was accepted");
  EXPECT_EQ(Output()["tasks"][0]["status"], "needs-revision");
}

TEST_F(SupervisorTest, WorkerFails_SkipModeLeavesItOutOfTheReview) {
  Plan(kTwoTasks);
  Sent();
  v1::Assignment api = Task("api");
  h_.Finish(w_, Task("intro"), true, "intro text");
  h_.Finish(w_, api, false, "model overloaded");
  ASSERT_THAT(Sent(), ElementsAre("reviewer-1"));
  EXPECT_THAT(Task("reviewer-1").prompt(), Not(HasSubstr("\"api\"")));
  h_.Finish(w_, Task("reviewer-1"), true, R"([{"task_id": "intro", "verdict": "accepted"}])");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(Output()["tasks"][1]["status"], "failed");
}

TEST_F(SupervisorTest, WorkerFails_FailModeFailsTheRun) {
  Plan(kTwoTasks, R"(, "onSubTaskError": "fail")");
  Sent();
  h_.Finish(w_, Task("api"), false, "model overloaded");
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h_.ReadRunView(run_).error(), HasSubstr("worker task 'api' failed"));
}

TEST_F(SupervisorTest, WorkerFails_RetryModeRedispatches) {
  Plan(R"({"tasks": [{"id": "api", "goal": "API"}]})", R"(, "onSubTaskError": "retry")");
  Sent();
  h_.Finish(w_, Task("api"), false, "model overloaded");
  h_.Advance(1'000);  // the retry backoff
  ASSERT_THAT(Sent(), ElementsAre("api"));
  EXPECT_EQ(Task("api").attempt(), 2);
}

TEST_F(SupervisorTest, Synthesizer_GetsOnlyTheAcceptedResults) {
  Plan(kTwoTasks, R"(, "synthesizerAgent": "synth", "maxIterations": 1)");
  FinishRoundOne();
  h_.Finish(w_, Task("reviewer-1"), true,
            R"([{"task_id": "intro", "verdict": "accepted"},
                {"task_id": "api", "verdict": "needs-revision"}])");
  ASSERT_THAT(Sent(), ElementsAre("synthesizer"));
  EXPECT_THAT(Task("synthesizer").prompt(), HasSubstr("intro text"));
  EXPECT_THAT(Task("synthesizer").prompt(), Not(HasSubstr("api text")));
  h_.Finish(w_, Task("synthesizer"), true, "# Docs");
  EXPECT_EQ(h_.ReadRunView(run_).output(), "# Docs");
}

}  // namespace
}  // namespace taskboard::engine
