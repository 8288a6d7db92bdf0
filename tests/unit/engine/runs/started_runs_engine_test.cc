// Runs a task's agent starts (SubmitRunRequest.started_by;
// docs/semantics.md#nested-runs): the run is a child of the starting task's
// run, one level deeper, refused past --max-run-depth, refused for a task
// that is not running or a run of another tenant, and cancelled when its
// parent ends (decision 219). Pattern children count toward the same depth.

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::HasSubstr;

constexpr char kOneTask[] = R"({"name": "starter", "phases": [
    {"id": "a", "agent": "coder", "task": "start something"}]})";
constexpr char kTwoTasks[] = R"({"name": "starter", "phases": [
    {"id": "a", "agent": "coder", "task": "first"},
    {"id": "b", "agent": "coder", "task": "second", "dependsOn": ["a"]}]})";

absl::StatusOr<SubmitResult> SubmitAs(EngineHarness& h, const char* flow, const std::string& tenant,
                                      std::optional<StartedBy> started_by = std::nullopt) {
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(flow);
  request.tenant = tenant;
  request.started_by = std::move(started_by);
  return h.TrySubmitRequest(std::move(request));
}

// A run of kOneTask for `tenant` whose task `a` a worker is running.
struct Started {
  std::string run_id;
  TestWorker worker;
  v1::Assignment task;
};

Started StartOne(EngineHarness& h, const std::string& tenant, const char* flow = kOneTask) {
  absl::StatusOr<SubmitResult> run = SubmitAs(h, flow, tenant);
  EXPECT_TRUE(run.ok()) << run.status();
  Started started{run.ok() ? run->run_id : "", h.Connect("w1", {"coder"}, 4), {}};
  started.task = h.OnlyAssignment(started.worker);
  h.Started(started.worker, started.task);
  return started;
}

TEST(StartedRunsTest, RunningTask_StartsAChildOfItsRun_OneLevelDeeper) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> child =
      SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, parent.task.task_id()});
  ASSERT_TRUE(child.ok()) << child.status();

  const v1::Run view = h.ReadRunView(child->run_id);
  EXPECT_EQ(view.parent_run_id(), parent.run_id);
  EXPECT_EQ(view.root_run_id(), parent.run_id);
  EXPECT_EQ(view.parent_task_id(), "a");
  EXPECT_EQ(view.depth(), 1);
  EXPECT_EQ(view.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(h.ReadRunView(parent.run_id).child_run_ids(), ::testing::ElementsAre(child->run_id));
  EXPECT_EQ(h.ReadRunView(parent.run_id).depth(), 0);
  // The task that started it goes on; the child has tasks of its own.
  EXPECT_EQ(h.ReadTaskView(parent.run_id, "a").state(), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(h.ReadTaskView(child->run_id, "a").child_run_id(), "");
  EXPECT_EQ(h.TakeAssignments(parent.worker).size(), 1u) << "the child's task was not dispatched";
}

TEST(StartedRunsTest, AnotherTenantsRun_ReadsAsAnUnknownRun) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> other =
      SubmitAs(h, kOneTask, "globex", StartedBy{parent.run_id, "a"});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(), HasSubstr("no run '" + parent.run_id + "' in your tenant"));
  absl::StatusOr<SubmitResult> unknown = SubmitAs(h, kOneTask, "acme", StartedBy{"r-nope", "a"});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("no run 'r-nope' in your tenant"));
  EXPECT_THAT(h.ReadRunView(parent.run_id).child_run_ids(), ::testing::IsEmpty());
}

TEST(StartedRunsTest, UnknownTask_IsInvalidArgument) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, "z"});
  EXPECT_EQ(child.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(child.status().message(), HasSubstr("has no task 'z'"));
}

TEST(StartedRunsTest, FinishedTask_IsFailedPrecondition) {
  EngineHarness h;
  Started parent = StartOne(h, "acme", kTwoTasks);
  h.Result(parent.worker, parent.task, true, "done");
  ASSERT_EQ(h.Status(parent.run_id), v1::RUN_STATUS_RUNNING);  // b is next
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, "a"});
  EXPECT_EQ(child.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(child.status().message(),
              HasSubstr("task a of run " + parent.run_id + " is completed, not running"));
}

TEST(StartedRunsTest, EndedRun_IsFailedPrecondition) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  h.Result(parent.worker, parent.task, true, "done");
  ASSERT_EQ(h.Status(parent.run_id), v1::RUN_STATUS_COMPLETED);
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, "a"});
  EXPECT_EQ(child.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(child.status().message(), HasSubstr("has ended completed"));
}

TEST(StartedRunsTest, PastMaxRunDepth_IsFailedPreconditionNamingTheFlag) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_run_depth = 1;
  EngineHarness h(options);
  Started root = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{root.run_id, "a"});
  ASSERT_TRUE(child.ok()) << child.status();
  v1::Assignment child_task = h.OnlyAssignment(root.worker);
  ASSERT_EQ(child_task.run_id(), child->run_id);
  h.Started(root.worker, child_task);

  absl::StatusOr<SubmitResult> grandchild =
      SubmitAs(h, kOneTask, "acme", StartedBy{child->run_id, "a"});
  EXPECT_EQ(grandchild.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(grandchild.status().message(), HasSubstr("would be at depth 2"));
  EXPECT_THAT(grandchild.status().message(), HasSubstr("--max-run-depth=1"));
  // The refusal changed nothing: the task keeps running.
  EXPECT_EQ(h.ReadTaskView(child->run_id, "a").state(), v1::TASK_STATE_RUNNING);
  EXPECT_THAT(h.ReadRunView(child->run_id).child_run_ids(), ::testing::IsEmpty());
}

TEST(StartedRunsTest, ParentCancelled_CancelsTheRunItsTaskStarted) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, "a"});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(h.Cancel(parent.run_id, "enough").ok());
  EXPECT_EQ(h.Status(child->run_id), v1::RUN_STATUS_CANCELLED);
  EXPECT_THAT(h.ReadRunView(child->run_id).error(), HasSubstr("its parent run " + parent.run_id));
}

TEST(StartedRunsTest, ParentCompleted_CancelsTheRunItsTaskStarted) {
  EngineHarness h;
  Started parent = StartOne(h, "acme");
  absl::StatusOr<SubmitResult> child = SubmitAs(h, kOneTask, "acme", StartedBy{parent.run_id, "a"});
  ASSERT_TRUE(child.ok()) << child.status();
  h.Result(parent.worker, parent.task, true, "done without waiting");
  EXPECT_EQ(h.Status(parent.run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.Status(child->run_id), v1::RUN_STATUS_CANCELLED);
}

// A plan whose every step runs as a child supervisor run.
constexpr char kNested[] = R"({"name": "migrate", "kind": "plan_and_execute",
    "planAndExecute": {"goal": "migrate", "plannerAgent": "planner", "synthesizerAgent": "writer",
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder",
                       "reviewerAgent": "lead", "synthesizerAgent": "lead"}}})";

TEST(StartedRunsTest, PatternChild_PastMaxRunDepth_FailsItsStepNamingTheFlag) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_run_depth = 0;
  EngineHarness h(options);
  const std::string run = h.Submit(kNested);
  TestWorker w = h.Connect("w1", {"planner", "writer", "lead", "coder"}, 8);
  v1::Assignment planner = h.OnlyAssignment(w);
  h.Finish(w, planner, true, R"({"tasks": [{"id": "storage", "goal": "Migrate storage"}]})");
  const v1::Task step = h.ReadTaskView(run, "storage");
  EXPECT_EQ(step.child_run_id(), "");
  EXPECT_EQ(step.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(step.error(), HasSubstr("cannot start its child run"));
  EXPECT_THAT(step.error(), HasSubstr("--max-run-depth=0"));
}

TEST(StartedRunsTest, PatternChild_IsOneLevelDeeper) {
  EngineHarness h;
  const std::string run = h.Submit(kNested);
  TestWorker w = h.Connect("w1", {"planner", "writer", "lead", "coder"}, 8);
  v1::Assignment planner = h.OnlyAssignment(w);
  h.Finish(w, planner, true, R"({"tasks": [{"id": "storage", "goal": "Migrate storage"}]})");
  const std::string child = h.ReadTaskView(run, "storage").child_run_id();
  ASSERT_FALSE(child.empty());
  EXPECT_EQ(h.ReadRunView(child).depth(), 1);
  EXPECT_EQ(h.ReadRunView(child).parent_task_id(), "storage");
}

}  // namespace
}  // namespace taskboard::engine
