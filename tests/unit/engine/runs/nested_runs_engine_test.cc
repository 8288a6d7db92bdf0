// Nested patterns through the engine (docs/semantics.md#nested-runs, child_runs.h): a
// plan-and-execute run whose step executor is a supervisor carries out each
// step as a child supervisor run, linked both ways, sharing the request's
// ledger and tool cache, cancelled with its parent, and recovered after a
// restart.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The outer plan runs on `planner` / `writer`; every step is a supervisor
// of `lead` (planner and reviewer) and `coder` workers.
constexpr char kNested[] = R"({"name": "migrate", "kind": "plan_and_execute",
    "maxAttemptsPerTask": 2,
    "toolCache": {"tools": {"read_file": {"scope": "request"}}},
    "planAndExecute": {"goal": "migrate {args.dir}", "plannerAgent": "planner",
      "maxConcurrency": 2, "synthesizerAgent": "writer",
      "executionInstructions": "Keep tests green.",
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder",
                       "reviewerAgent": "lead", "synthesizerAgent": "lead"}},
    "args": {"dir": {"default": "billing"}}})";

constexpr char kTwoSteps[] = R"({"tasks": [{"id": "storage", "goal": "Migrate storage"},
    {"id": "http", "goal": "Migrate handlers", "deps": ["storage"]}]})";

v1::ToolDeclaration CacheableReadFile() {
  v1::ToolDeclaration tool;
  tool.set_name("read_file");
  tool.set_cacheable(true);
  tool.set_default_ttl_ms(60'000);
  return tool;
}

class NestedRunsTest : public ::testing::Test {
 protected:
  // Submits kNested and plans it with kTwoSteps on one worker offering every
  // agent; the first step's child run has started.
  void PlanTwoSteps() {
    run_ = h_.Submit(kNested);
    w_ = h_.Connect("w1", {"planner", "writer", "lead", "coder"}, 8, {}, {CacheableReadFile()});
    v1::Assignment planner = h_.OnlyAssignment(w_);
    ASSERT_EQ(planner.run_id(), run_);
    h_.Finish(w_, planner, true, kTwoSteps);
  }
  // The assignments the worker got since the last call.
  std::vector<v1::Assignment> Sent() { return pending_ = h_.TakeAssignments(w_); }
  v1::Assignment Pending(const std::string& run_id, const std::string& task_id) {
    for (const v1::Assignment& a : pending_) {
      if (a.run_id() == run_id && a.task_id() == task_id) return a;
    }
    ADD_FAILURE() << "no assignment for " << run_id << "/" << task_id;
    return {};
  }
  // Runs the child supervisor `child` to the end: one work item, accepted,
  // then the synthesizer's `report`. Its planner must be pending.
  void CompleteChild(const std::string& child, const std::string& report) {
    h_.Finish(w_, Pending(child, "planner"), true, R"({"tasks": [{"id": "edit", "goal": "E"}]})");
    Sent();
    h_.Finish(w_, Pending(child, "edit"), true, "edited");
    Sent();
    h_.Finish(w_, Pending(child, "reviewer-1"), true,
              R"({"assessments": [{"task_id": "edit", "verdict": "accepted", "score": 1}]})");
    Sent();
    h_.Finish(w_, Pending(child, "synthesizer"), true, report);
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  std::vector<v1::Assignment> pending_;
};

TEST_F(NestedRunsTest, EachStepRunsAsAChildSupervisorRunLinkedBothWays) {
  PlanTwoSteps();
  std::vector<v1::Assignment> sent = Sent();
  // No worker runs the step itself: its child run's planner goes out.
  ASSERT_THAT(sent, SizeIs(1));
  const std::string child = sent[0].run_id();
  EXPECT_NE(child, run_);
  EXPECT_EQ(sent[0].task_id(), "planner");
  EXPECT_EQ(sent[0].agent(), "lead");
  EXPECT_EQ(sent[0].root_run_id(), run_);
  EXPECT_THAT(sent[0].prompt(), HasSubstr("Migrate storage"));
  EXPECT_THAT(sent[0].prompt(), HasSubstr("migrate billing"));
  EXPECT_THAT(sent[0].prompt(), HasSubstr("Keep tests green."));

  v1::Task step = h_.ReadTaskView(run_, "storage");
  EXPECT_EQ(step.state(), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(step.child_run_id(), child);
  v1::Run parent = h_.ReadRunView(run_);
  EXPECT_THAT(parent.child_run_ids(), ElementsAre(child));
  v1::Run nested = h_.ReadRunView(child);
  EXPECT_EQ(nested.kind(), v1::FLOW_KIND_SUPERVISOR);
  EXPECT_EQ(nested.parent_run_id(), run_);
  EXPECT_EQ(nested.root_run_id(), run_);
  EXPECT_EQ(nested.flow_name(), "migrate/storage");
  EXPECT_EQ(nested.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(nested.board_meta(), "planning");

  v1::ListRunsRequest children;
  children.set_parent_run_id(run_);
  absl::StatusOr<v1::ListRunsResponse> listed = ListRuns(h_.store(), children);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(listed->runs(), SizeIs(1));
  EXPECT_EQ(listed->runs(0).run_id(), child);

  CompleteChild(child, "storage migrated");
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_COMPLETED);
  step = h_.ReadTaskView(run_, "storage");
  EXPECT_EQ(step.state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(step.output(), "storage migrated");
  EXPECT_GT(step.usage().output_tokens(), 0);

  // The dependent step's child hears what the first one produced.
  sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  const std::string second = sent[0].run_id();
  EXPECT_NE(second, child);
  EXPECT_THAT(sent[0].prompt(), HasSubstr("Migrate handlers"));
  EXPECT_THAT(sent[0].prompt(), HasSubstr("storage migrated"));
  CompleteChild(second, "handlers migrated");

  ASSERT_THAT(Sent(), SizeIs(1));
  v1::Assignment synthesizer = Pending(run_, "synthesizer");
  EXPECT_THAT(synthesizer.prompt(), HasSubstr("handlers migrated"));
  h_.Finish(w_, synthesizer, true, "migration report");
  parent = h_.ReadRunView(run_);
  EXPECT_EQ(parent.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(parent.output(), "migration report");
  EXPECT_EQ(parent.board_meta(), "completed");
  EXPECT_THAT(parent.child_run_ids(), ElementsAre(child, second));
  // The request's usage includes what its children spent.
  EXPECT_GE(parent.usage().output_tokens(), h_.ReadRunView(child).usage().output_tokens() +
                                                h_.ReadRunView(second).usage().output_tokens());
}

TEST_F(NestedRunsTest, ChildRunFails_StepFailsAndItsDependentsAreSkipped) {
  PlanTwoSteps();
  const std::string child = Sent().at(0).run_id();
  // The child's planner fails both attempts: the child run fails.
  h_.Finish(w_, Pending(child, "planner"), false, "model unavailable");
  h_.Advance(1'000);  // the retry backoff
  h_.Finish(w_, Sent().at(0), false, "model unavailable");
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_FAILED);

  v1::Task step = h_.ReadTaskView(run_, "storage");
  EXPECT_EQ(step.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(step.error(), HasSubstr("child run " + child + " ended failed"));
  EXPECT_THAT(step.error(), HasSubstr("model unavailable"));
  EXPECT_EQ(h_.ReadTaskView(run_, "http").state(), v1::TASK_STATE_SKIPPED);
  // The synthesizer still reports the failed plan.
  v1::Assignment synthesizer = Sent().at(0);
  ASSERT_EQ(synthesizer.task_id(), "synthesizer");
  EXPECT_THAT(synthesizer.prompt(), HasSubstr("model unavailable"));
}

TEST_F(NestedRunsTest, CancellingTheParent_CancelsTheChildAndStopsItsWorkers) {
  PlanTwoSteps();
  const std::string child = Sent().at(0).run_id();
  h_.Finish(w_, Pending(child, "planner"), true, R"({"tasks": [{"id": "edit", "goal": "E"}]})");
  v1::Assignment edit = Sent().at(0);
  h_.Started(w_, edit);

  ASSERT_TRUE(h_.Cancel(run_, "operator stop").ok());
  EXPECT_EQ(h_.Status(run_), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(h_.Status(child), v1::RUN_STATUS_CANCELLED);
  EXPECT_THAT(h_.ReadRunView(child).error(), HasSubstr("parent run " + run_));
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(w_.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].lease_id(), edit.lease_id());
}

TEST_F(NestedRunsTest, ResumingAChildRun_IsRefusedNamingTheParent) {
  PlanTwoSteps();
  const std::string child = Sent().at(0).run_id();
  ASSERT_TRUE(h_.Cancel(run_).ok());
  absl::StatusOr<ResumeResult> resumed = h_.Resume(child);
  EXPECT_EQ(resumed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(resumed.status().message(), HasSubstr("child run of " + run_));
}

TEST_F(NestedRunsTest, ChildRunsShareTheRequestsToolCacheAndLedger) {
  PlanTwoSteps();
  const std::string first = Sent().at(0).run_id();
  h_.Finish(w_, Pending(first, "planner"), true, R"({"tasks": [{"id": "edit", "goal": "E"}]})");
  v1::Assignment edit = Sent().at(0);
  h_.Lookup(w_, edit, "q1", "read_file", R"({"path": "go.mod"})");
  std::vector<v1::ToolDecision> miss = EngineHarness::Decisions(w_.channel->Take());
  ASSERT_THAT(miss, SizeIs(1));
  ASSERT_EQ(miss[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  h_.Observe(w_, edit, "read_file", R"({"path": "go.mod"})", R"({"content": "module billing"})",
             miss[0].call_id());
  h_.Finish(w_, edit, true, "edited");
  Sent();
  h_.Finish(w_, Pending(first, "reviewer-1"), true,
            R"({"assessments": [{"task_id": "edit", "verdict": "accepted", "score": 1}]})");
  Sent();
  h_.Finish(w_, Pending(first, "synthesizer"), true, "storage migrated");

  // The second step's child: its planner's prior work (the request's
  // recent trajectory) holds the first child's read, and the same read is
  // a cache hit sourced from the first child's task.
  v1::Assignment planner = Sent().at(0);
  const std::string second = planner.run_id();
  ASSERT_NE(second, first);
  ASSERT_THAT(planner.prior_work().observations(), SizeIs(1));
  EXPECT_EQ(planner.prior_work().observations(0).run_id(), first);
  EXPECT_EQ(planner.prior_work().observations(0).tool_name(), "read_file");
  h_.Lookup(w_, planner, "q2", "read_file", R"({"path": "go.mod"})");
  std::vector<v1::ToolDecision> hit = EngineHarness::Decisions(w_.channel->Take());
  ASSERT_THAT(hit, SizeIs(1));
  EXPECT_EQ(hit[0].outcome(), v1::ToolDecision::OUTCOME_HIT);
  EXPECT_EQ(hit[0].source_task().run_id(), first);
  EXPECT_EQ(hit[0].source_task().task_id(), "edit");
}

TEST(NestedRuns, Restart_ChildRunAndItsLinkAreRecovered) {
  EngineHarness h;
  const std::string run = h.Submit(kNested);
  // Only the outer agents are offered: the child's planner waits, ready.
  TestWorker outer = h.Connect("outer", {"planner", "writer"}, 4);
  h.Finish(outer, h.OnlyAssignment(outer), true,
           R"({"tasks": [{"id": "storage", "goal": "Migrate storage"}]})");
  const std::string child = h.ReadTaskView(run, "storage").child_run_id();
  ASSERT_FALSE(child.empty());

  h.Restart();
  TestWorker inner = h.Connect("inner", {"lead", "coder"}, 4);
  v1::Assignment planner = h.OnlyAssignment(inner);
  EXPECT_EQ(planner.run_id(), child);
  h.Finish(inner, planner, true, R"({"tasks": [{"id": "edit", "goal": "E"}]})");
  h.Finish(inner, h.OnlyAssignment(inner), true, "edited");
  h.Finish(inner, h.OnlyAssignment(inner), true,
           R"({"assessments": [{"task_id": "edit", "verdict": "accepted", "score": 1}]})");
  h.Finish(inner, h.OnlyAssignment(inner), true, "storage migrated");
  EXPECT_EQ(h.Status(child), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.ReadTaskView(run, "storage").state(), v1::TASK_STATE_COMPLETED);

  outer = h.Connect("outer", {"planner", "writer"}, 4);
  v1::Assignment synthesizer = h.OnlyAssignment(outer);
  EXPECT_EQ(synthesizer.task_id(), "synthesizer");
  h.Finish(outer, synthesizer, true, "report");
  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(h.ReadRunView(child).error(), IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
