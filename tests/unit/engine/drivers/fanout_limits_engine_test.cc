// The fan-out limits through the engine (run_limits.h): each one hit with
// 100 times the limit ends in an error naming the limit and its flag, and
// the engine goes on serving.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/plans.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

EngineOptions SmallLimits() {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_items_per_phase = 3;
  options.limits.max_plan_tasks = 2;
  options.limits.max_interpolated_bytes = 100;
  options.limits.max_tool_result_bytes = 50;
  options.limits.max_child_runs_per_run = 1;
  options.limits.max_event_bytes = 2'000;
  return options;
}

// A JSON plan of `count` independent tasks.
using ::taskboard::testing::PlanOf;

std::string JsonArrayOf(int count) {
  std::string items;
  for (int i = 0; i < count; ++i) absl::StrAppend(&items, i == 0 ? "" : ",", i);
  return absl::StrCat("[", items, "]");
}

constexpr char kMap[] = R"({"name": "m", "phases": [
    {"id": "list", "agent": "coder", "task": "list", "output": "json"},
    {"id": "each", "type": "map", "agent": "coder", "task": "do {item}",
     "over": "{steps.list.json}", "dependsOn": ["list"]}]})";

TEST(FanOutLimits, MapOverTheItemLimit_FailsThePhaseNamingTheFlag) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(kMap);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, JsonArrayOf(300));

  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h.ReadRunView(run).error(),
              HasSubstr("map phase 'each': 'over' resolved to 300 items, over the scheduler's "
                        "limit of 3 per phase (scheduler flag --max-items-per-phase)"));
}

TEST(FanOutLimits, MapAtTheItemLimit_FansOut) {
  EngineHarness h(SmallLimits());
  h.Submit(kMap);
  TestWorker w = h.Connect("w1", {"coder"}, 8);
  h.Finish(w, h.OnlyAssignment(w), true, JsonArrayOf(3));
  EXPECT_THAT(h.TakeAssignments(w), SizeIs(3));
}

TEST(FanOutLimits, InterpolationOverTheLimit_FailsNamingPhaseFieldAndFlag) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(R"({"name": "grow", "phases": [
      {"id": "a", "agent": "coder", "task": "say"},
      {"id": "b", "agent": "coder", "task": "{steps.a.output} {steps.a.output}",
       "dependsOn": ["a"]}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, std::string(5'000, 'x'));

  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h.ReadRunView(run).error(),
              HasSubstr("phase 'b': 'task' is over 100 bytes once interpolated, the scheduler's "
                        "limit (scheduler flag --max-interpolated-bytes)"));
}

constexpr char kPlanExecute[] = R"({"name": "pe", "kind": "plan_and_execute",
    "maxAttemptsPerTask": 2,
    "planAndExecute": {"goal": "ship", "plannerAgent": "planner", "executorAgent": "executor"}})";

TEST(FanOutLimits, PlannerOverThePlanLimit_RetriedThenAClearFailure) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(kPlanExecute);
  TestWorker w = h.Connect("w1", {"planner", "executor"}, 4);
  h.Finish(w, h.OnlyAssignment(w), true, PlanOf(200));
  v1::Assignment again = h.OnlyAssignment(w);
  EXPECT_EQ(again.task_id(), "planner");
  EXPECT_EQ(again.attempt(), 2);
  h.Finish(w, again, true, PlanOf(200));

  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h.ReadRunView(run).error(),
              HasSubstr("planner failed: the plan is invalid: 200 planned tasks are over the "
                        "scheduler's limit of 2 per plan (scheduler flag --max-plan-tasks)"));
}

TEST(FanOutLimits, SupervisorPlannerOverThePlanLimit_RetriedThenAClearFailure) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(R"({"name": "sv", "kind": "supervisor", "maxAttemptsPerTask": 2,
      "supervisor": {"goal": "ship", "plannerAgent": "lead", "workerAgent": "coder",
                     "reviewerAgent": "lead"}})");
  TestWorker w = h.Connect("w1", {"lead", "coder"}, 4);
  h.Finish(w, h.OnlyAssignment(w), true, PlanOf(200));
  v1::Assignment again = h.OnlyAssignment(w);
  EXPECT_EQ(again.attempt(), 2);
  h.Finish(w, again, true, PlanOf(200));

  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(h.ReadRunView(run).error(), HasSubstr("--max-plan-tasks"));
}

TEST(FanOutLimits, PlanAtTheLimit_RunsItsSteps) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(kPlanExecute);
  TestWorker w = h.Connect("w1", {"planner", "executor"}, 4);
  h.Finish(w, h.OnlyAssignment(w), true, PlanOf(2));
  EXPECT_EQ(h.OnlyAssignment(w).task_id(), "t0");
}

TEST(FanOutLimits, ToolResultOverTheLimit_RecordedAsAnErrorAndNotCached) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(R"({"name": "two", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"}]})");
  v1::ToolDeclaration read_file;
  read_file.set_name("read_file");
  read_file.set_cacheable(true);
  read_file.set_default_ttl_ms(60'000);
  TestWorker w = h.Connect("w1", {"coder"}, 2, {}, {read_file});
  std::vector<v1::Assignment> tasks = h.TakeAssignments(w);
  ASSERT_THAT(tasks, SizeIs(2));
  const std::string args = R"({"path":"big"})";
  h.Lookup(w, tasks[0], "q1", "read_file", args);
  std::vector<v1::ToolDecision> miss = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(miss, SizeIs(1));
  h.Observe(w, tasks[0], "read_file", args, absl::StrCat("\"", std::string(5'000, 'x'), "\""),
            miss[0].call_id());

  const auto recorded = h.ReadTaskResponse(run, "a").tool_calls();
  ASSERT_THAT(recorded, SizeIs(1));
  EXPECT_THAT(recorded[0].result_json(), IsEmpty());
  EXPECT_THAT(recorded[0].error(),
              HasSubstr("tool 'read_file' returned 5002 bytes, over the scheduler's limit of 50 "
                        "bytes (scheduler flag --max-tool-result-bytes)"));
  // Not cached: the same call from the other task must run again.
  h.Lookup(w, tasks[1], "q2", "read_file", args);
  std::vector<v1::ToolDecision> again = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(again, SizeIs(1));
  EXPECT_EQ(again[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
}

TEST(FanOutLimits, OutputDeltaOverTheEventLimit_IsCutWithAMarker) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(R"({"name": "one", "phases": [
      {"id": "a", "agent": "coder", "task": "talk"}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  v1::ConnectRequest delta;
  delta.mutable_output_delta()->set_task_id("a");
  delta.mutable_output_delta()->set_lease_id(a.lease_id());
  delta.mutable_output_delta()->set_text(std::string(200'000, 'y'));
  h.Send(w, std::move(delta));

  std::vector<v1::RunEvent> events = h.Events(run);
  const v1::RunEvent* cut = nullptr;
  for (const v1::RunEvent& event : events) {
    if (event.has_output_delta()) cut = &event;
  }
  ASSERT_NE(cut, nullptr);
  EXPECT_LE(cut->ByteSizeLong(), 2'000u);
  EXPECT_THAT(cut->output_delta().text(),
              HasSubstr(" of 200000 bytes shown; scheduler flag --max-event-bytes]"));
  // The engine goes on: the task still completes.
  h.Result(w, a, true, "done");
  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_COMPLETED);
}

// Every step runs as a child supervisor run; the limit admits one.
constexpr char kNested[] = R"({"name": "nest", "kind": "plan_and_execute",
    "planAndExecute": {"goal": "g", "plannerAgent": "planner", "maxConcurrency": 2,
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder", "reviewerAgent": "lead"}}})";

TEST(FanOutLimits, ChildRunsOverTheLimit_TheStepFailsNamingTheFlag) {
  EngineHarness h(SmallLimits());
  std::string run = h.Submit(kNested);
  TestWorker w = h.Connect("w1", {"planner", "lead", "coder"}, 8);
  h.Finish(w, h.OnlyAssignment(w), true, PlanOf(2));

  v1::Run parent = h.ReadRunView(run);
  EXPECT_THAT(parent.child_run_ids(), SizeIs(1));
  v1::Task second = h.ReadTaskView(run, "t1");
  EXPECT_EQ(second.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(second.error(), HasSubstr("has started 1 child runs, the scheduler's limit per run "
                                        "(scheduler flag --max-child-runs-per-run)"));
  EXPECT_THAT(h.ReadTaskView(run, "t0").error(), Not(HasSubstr("--max-child-runs-per-run")));
}

}  // namespace
}  // namespace taskboard::engine
