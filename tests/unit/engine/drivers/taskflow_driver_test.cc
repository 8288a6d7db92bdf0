// TaskflowDriver on a bare RunState (docs/semantics.md#execution): the test plays the
// workers through DriverHarness and checks phases, tasks and the run's end.

#include "scheduler/engine/drivers/taskflow_driver.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/driver_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::DriverHarness;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------
// Chains, eager scheduling and concurrency

TEST(TaskflowDriver, Chain_RunsInOrderAndInterpolatesPreviousOutput) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "x", "agent": "coder", "task": "write a haiku"},
      {"id": "y", "agent": "critic", "task": "review: {steps.x.output}", "dependsOn": ["x"]}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("x"));
  EXPECT_EQ(run.PhaseState("y"), v1::TASK_STATE_PENDING);
  EXPECT_FALSE(run.HasTask("y"));

  run.Complete("x", "old pond, frog");
  EXPECT_THAT(run.Ready(), ElementsAre("y"));
  EXPECT_EQ(run.Prompt("y"), "review: old pond, frog");
  EXPECT_EQ(run.Sent("y").agent(), "critic");
  EXPECT_EQ(run.Sent("y").run_id(), "run-1");
  EXPECT_EQ(run.Sent("y").root_run_id(), "run-1");
  EXPECT_EQ(run.PhaseState("x"), v1::TASK_STATE_COMPLETED);

  run.Complete("y", "lovely");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), "lovely");
}

TEST(TaskflowDriver, Chain_ArgsPlaceholder_InterpolatesRunArgs) {
  DriverHarness run(R"({"name": "f", "args": {"topic": {"required": true}},
      "phases": [{"id": "a", "agent": "coder", "task": "write about {args.topic}"}]})",
                    Json{{"topic", "frogs"}});
  run.Start();
  ASSERT_THAT(run.Ready(), ElementsAre("a"));
  EXPECT_EQ(run.Prompt("a"), "write about frogs");
}

TEST(TaskflowDriver, PhaseCacheableByTool_ReachesTheAssignment) {
  DriverHarness run(R"({"name": "f", "phases": [{"id": "a", "agent": "coder", "task": "look",
      "cacheable": {"read_file": false, "web_fetch": true}}]})");
  run.Start();
  ASSERT_THAT(run.Ready(), ElementsAre("a"));
  const auto& overrides = run.Task("a").assignment().tool_cache_overrides();
  ASSERT_EQ(overrides.size(), 2u);
  EXPECT_FALSE(overrides.at("read_file"));
  EXPECT_TRUE(overrides.at("web_fetch"));
}

TEST(TaskflowDriver, Eager_PhaseStartsWhenItsOwnDepsFinish_NotByLayer) {
  // a is slow; b -> c must not wait for a, although a and b share a layer.
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "slow"},
      {"id": "b", "agent": "coder", "task": "fast"},
      {"id": "c", "agent": "coder", "task": "after {steps.b.output}", "dependsOn": ["b"]},
      {"id": "d", "agent": "coder", "task": "end", "dependsOn": ["a", "c"]}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("a", "b"));
  run.Complete("b", "B");
  EXPECT_THAT(run.Ready(), ElementsAre("a", "c"));
  EXPECT_EQ(run.Phase("c").status().layer(), 1);
  run.Complete("c", "C");
  EXPECT_THAT(run.Ready(), ElementsAre("a"));
  EXPECT_EQ(run.PhaseState("d"), v1::TASK_STATE_PENDING);
  run.Complete("a", "A");
  EXPECT_THAT(run.Ready(), ElementsAre("d"));
}

TEST(TaskflowDriver, FlowConcurrency_LimitsPhasesInFlight) {
  DriverHarness run(R"({"name": "f", "concurrency": 2, "phases": [
      {"id": "a", "agent": "coder", "task": "1"},
      {"id": "b", "agent": "coder", "task": "2"},
      {"id": "c", "agent": "coder", "task": "3"}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("a", "b"));
  EXPECT_EQ(run.PhaseState("c"), v1::TASK_STATE_PENDING);
  run.Dispatch("a");
  run.Advance();
  EXPECT_EQ(run.PhaseState("c"), v1::TASK_STATE_PENDING) << "a dispatched is still in flight";
  run.Complete("b", "B");
  EXPECT_THAT(run.Ready(), ElementsAre("c"));
}

TEST(TaskflowDriver, MapConcurrency_LimitsItemsInFlight) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "concurrency": 2, "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", R"(["a", "b", "c", "d", "e"])");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[1]"));
  EXPECT_THAT(run.TasksIn(v1::TASK_STATE_PENDING), ElementsAre("m[2]", "m[3]", "m[4]"));
  EXPECT_EQ(run.Phase("m").status().items_total(), 5);
  run.Complete("m[1]", "B");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[2]"));
  EXPECT_EQ(run.Phase("m").status().items_done(), 1);
}

TEST(TaskflowDriver, MapProgress_OutOfOrderRetriesAndANewDriverKeepExactCounts) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "concurrency": 2, "retries": 1, "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", "[0, 1, 2, 3, 4]");
  run.Complete("m[1]", "one");  // out of order: m[0] still runs
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[2]"));
  EXPECT_EQ(run.Fail("m[2]", "flaky"), AttemptOutcome::kRetrying);
  run.RetryNow("m[2]");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[2]")) << "a retry keeps its slot";
  run.Complete("m[0]", "zero");
  EXPECT_THAT(run.Ready(), ElementsAre("m[2]", "m[3]"));
  // The scheduler restarts: a new driver counts from the tasks themselves.
  run.RestartDriver();
  run.Advance();
  EXPECT_EQ(run.Phase("m").status().items_done(), 2);
  EXPECT_THAT(run.Ready(), ElementsAre("m[2]", "m[3]"));
  run.Complete("m[3]", "three");
  run.Complete("m[2]", "two");
  run.Complete("m[4]", "four");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.Phase("m").status().items_done(), 5);
  EXPECT_EQ(run.Phase("m").output_json(), R"(["zero","one","two","three","four"])");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
}

TEST(TaskflowDriver, MapConcurrency_DefaultsToFlowConcurrency) {
  DriverHarness run(R"({"name": "f", "concurrency": 3, "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", "[1, 2, 3, 4, 5]");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[1]", "m[2]"));
}

// ---------------------------------------------------------------------------
// map, parallel, reduce

TEST(TaskflowDriver, MapPhase_JsonArrayFromUpstream_OneTaskPerItemAndMergedOutput) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list files", "output": "json"},
      {"id": "m", "type": "map", "agent": "reader", "over": "{steps.d.json}", "as": "file",
       "task": "read {file.path}", "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", "Here:\n```json\n[{\"path\": \"a.cc\"}, {\"path\": \"b.cc\"}]\n```");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[1]"));
  EXPECT_EQ(run.Prompt("m[0]"), "read a.cc");
  EXPECT_EQ(run.Prompt("m[1]"), "read b.cc");
  EXPECT_EQ(run.Task("m[1]").task().item_index(), 1);
  EXPECT_EQ(run.Task("m[1]").task().phase_id(), "m");
  EXPECT_THAT(run.Phase("m").items(), ElementsAre(R"({"path":"a.cc"})", R"({"path":"b.cc"})"));

  run.Complete("m[1]", "second");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_RUNNING);
  run.Complete("m[0]", "first");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.Phase("m").output(),
            "### [1/2] reader\n\nfirst\n\n---\n\n### [2/2] reader\n\nsecond");
  EXPECT_EQ(run.Phase("m").output_json(), R"(["first","second"])");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), run.Phase("m").output());
}

TEST(TaskflowDriver, MapPhase_ObjectWithItems_MapsTheItemsArray) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "fix {item.name}", "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", R"({"count": 2, "items": [{"name": "x"}, {"name": "y"}]})");
  EXPECT_THAT(run.Ready(), ElementsAre("m[0]", "m[1]"));
  EXPECT_EQ(run.Prompt("m[0]"), "fix x");
  EXPECT_EQ(run.Prompt("m[1]"), "fix y");
}

TEST(TaskflowDriver, MapPhase_OverNotAnArray_FailsPhaseWithSemanticsMessage) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list"},
      {"id": "audit", "type": "map", "agent": "coder", "over": "{steps.d.output}",
       "task": "audit {item}", "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", "no files");
  EXPECT_EQ(run.PhaseState("audit"), v1::TASK_STATE_FAILED);
  EXPECT_EQ(run.Phase("audit").error(),
            "map phase 'audit': 'over' did not resolve to an array (got: no files)");
  EXPECT_THAT(run.Ready(), IsEmpty());
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.run().error(),
            "phase 'audit' failed: map phase 'audit': 'over' did not resolve to an array (got: "
            "no files)");
}

TEST(TaskflowDriver, MapPhase_EmptyArray_CompletesWithEmptyOutput) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "dependsOn": ["d"]},
      {"id": "s", "agent": "coder", "task": "sum [{steps.m.output}] {steps.m.json}",
       "dependsOn": ["m"]}]})");
  run.Start();
  run.Complete("d", "[]");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.Phase("m").output(), "");
  EXPECT_EQ(run.Phase("m").output_json(), "[]");
  EXPECT_EQ(run.Phase("m").status().items_total(), 0);
  EXPECT_FALSE(run.HasTask("m[0]"));
  ASSERT_THAT(run.Ready(), ElementsAre("s"));
  EXPECT_EQ(run.Prompt("s"), "sum [] []");
}

TEST(TaskflowDriver, MapPhase_ItemFails_PhaseFailsAfterAllItemsFinish) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "d", "agent": "lister", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "agent": "coder", "over": "{steps.d.json}",
       "task": "do {item}", "dependsOn": ["d"]}]})");
  run.Start();
  run.Complete("d", R"(["a", "b"])");
  run.Fail("m[0]", "boom");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(run.Phase("m").status().items_failed(), 1);
  run.Complete("m[1]", "ok");
  EXPECT_EQ(run.PhaseState("m"), v1::TASK_STATE_FAILED);
  EXPECT_EQ(run.Phase("m").error(), "1 of 2 items failed; first: m[0]: boom");
  EXPECT_EQ(run.Phase("m").output(),
            "### [1/2] coder (failed)\n\nboom\n\n---\n\n### [2/2] coder\n\nok");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
}

TEST(TaskflowDriver, ParallelPhase_MergesBranchOutputsInInputOrder) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "p", "type": "parallel", "agent": "coder", "branches": [
        {"task": "left"}, {"task": "right", "agent": "critic"}]}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("p[0]", "p[1]"));
  EXPECT_EQ(run.Sent("p[0]").agent(), "coder");
  EXPECT_EQ(run.Sent("p[1]").agent(), "critic");
  EXPECT_EQ(run.Prompt("p[1]"), "right");
  run.Complete("p[1]", "R");
  run.Complete("p[0]", "L");
  EXPECT_EQ(run.Phase("p").output(), "### [1/2] coder\n\nL\n\n---\n\n### [2/2] critic\n\nR");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), run.Phase("p").output());
}

TEST(TaskflowDriver, ReducePhase_WaitsForEveryFromPhase) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"},
      {"id": "r", "type": "reduce", "agent": "writer", "from": ["a", "b"],
       "task": "combine {steps.a.output} and {steps.b.output}"}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("a", "b"));
  run.Complete("a", "one");
  EXPECT_EQ(run.PhaseState("r"), v1::TASK_STATE_PENDING);
  run.Complete("b", "two");
  ASSERT_THAT(run.Ready(), ElementsAre("r"));
  EXPECT_EQ(run.Prompt("r"), "combine one and two");
  run.Complete("r", "both");
  EXPECT_EQ(run.run().output(), "both");
}

// ---------------------------------------------------------------------------
// Gates

TEST(TaskflowDriver, Gate_Pass_ContinuesToNextPhase) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "g", "type": "gate", "agent": "judge", "task": "ok?"},
      {"id": "b", "agent": "coder", "task": "go", "dependsOn": ["g"]}]})");
  run.Start();
  run.Complete("g", "Looks fine.\nVERDICT: PASS");
  EXPECT_EQ(run.PhaseState("g"), v1::TASK_STATE_COMPLETED);
  EXPECT_TRUE(run.Phase("g").status().gate().pass());
  EXPECT_THAT(run.Ready(), ElementsAre("b"));
  run.Complete("b", "done");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), "done");
}

TEST(TaskflowDriver, Gate_Block_SkipsRemainingPhasesAndBlocksRun) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "g", "type": "gate", "agent": "judge", "task": "ok?"},
      {"id": "b", "agent": "coder", "task": "go", "dependsOn": ["g"]},
      {"id": "c", "agent": "coder", "task": "end", "dependsOn": ["b"]}]})");
  run.Start();
  const std::string verdict = R"({"pass": false, "reason": "tests fail"})";
  run.Complete("g", verdict);
  EXPECT_FALSE(run.Phase("g").status().gate().pass());
  EXPECT_EQ(run.Phase("g").status().gate().reason(), "tests fail");
  for (const char* id : {"b", "c"}) {
    EXPECT_EQ(run.PhaseState(id), v1::TASK_STATE_SKIPPED) << id;
    EXPECT_EQ(run.Phase(id).status().skip_reason(), "gate 'g' blocked: tests fail") << id;
  }
  EXPECT_THAT(run.Ready(), IsEmpty());
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_EQ(run.run().output(), "Gate blocked the workflow.\nReason: tests fail\n\n" + verdict);
}

TEST(TaskflowDriver, Gate_Block_RunningPhasesFinishBeforeRunEnds) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "g", "type": "gate", "agent": "judge", "task": "ok?"},
      {"id": "p", "agent": "coder", "task": "independent"},
      {"id": "q", "agent": "coder", "task": "after", "dependsOn": ["g"]}]})");
  run.Start();
  EXPECT_THAT(run.Ready(), ElementsAre("g", "p"));
  run.Complete("g", "VERDICT: BLOCK security hole");
  EXPECT_EQ(run.PhaseState("q"), v1::TASK_STATE_SKIPPED);
  EXPECT_EQ(run.PhaseState("p"), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  run.Complete("p", "P");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  EXPECT_THAT(run.run().output(), StartsWith("Gate blocked the workflow.\nReason: security hole"));
}

// ---------------------------------------------------------------------------
// Failures, skipping, optional phases, retries

TEST(TaskflowDriver, Failure_SkipsDependentsTransitivelyAndFailsRun) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "x", "agent": "coder", "task": "X"},
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B", "dependsOn": ["a"]},
      {"id": "c", "agent": "coder", "task": "C", "dependsOn": ["b"]}]})");
  run.Start();
  run.Fail("a", "compiler crashed");
  EXPECT_EQ(run.PhaseState("a"), v1::TASK_STATE_FAILED);
  EXPECT_EQ(run.Phase("a").error(), "compiler crashed");
  for (const char* id : {"b", "c"}) {
    EXPECT_EQ(run.PhaseState(id), v1::TASK_STATE_SKIPPED) << id;
    EXPECT_EQ(run.Phase(id).status().skip_reason(), "upstream phase 'a' failed") << id;
  }
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING) << "x is still running";
  run.Complete("x", "X");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.run().error(), "phase 'a' failed: compiler crashed");
  EXPECT_EQ(run.run().output(), "") << "the final phase c never ran";
}

TEST(TaskflowDriver, OptionalPhaseFails_DependentsRunWithEmptyOutput) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "opt", "agent": "coder", "task": "try", "optional": true},
      {"id": "b", "agent": "coder", "task": "use [{steps.opt.output}]", "dependsOn": ["opt"]}]})");
  run.Start();
  run.Fail("opt", "nope");
  EXPECT_EQ(run.PhaseState("opt"), v1::TASK_STATE_FAILED);
  ASSERT_THAT(run.Ready(), ElementsAre("b"));
  EXPECT_EQ(run.Prompt("b"), "use []");
  run.Complete("b", "fine");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().error(), "");
}

TEST(TaskflowDriver, Retries_RetryingThenFailedAfterMaxAttempts) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "flaky", "retries": 2}]})");
  run.Start();
  EXPECT_EQ(run.Task("a").max_attempts(), 3);
  EXPECT_EQ(run.Fail("a", "e1"), AttemptOutcome::kRetrying);
  EXPECT_EQ(run.Task("a").task().state(), v1::TASK_STATE_RETRYING);
  EXPECT_EQ(run.Task("a").not_before_unix_ms(), run.now() + DriverHarness::kRetryDelayMs);
  EXPECT_EQ(run.PhaseState("a"), v1::TASK_STATE_RUNNING);
  run.RetryNow("a");
  EXPECT_EQ(run.Fail("a", "e2"), AttemptOutcome::kRetrying);
  EXPECT_EQ(run.Task("a").task().attempt(), 2);
  run.RetryNow("a");
  EXPECT_EQ(run.Fail("a", "e3"), AttemptOutcome::kFailed);
  EXPECT_EQ(run.Task("a").task().attempt(), 3);
  EXPECT_EQ(run.Task("a").task().state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.run().error(), "phase 'a' failed: e3");
}

TEST(TaskflowDriver, Retries_SucceedsOnSecondAttempt) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "flaky", "retries": 1}]})");
  run.Start();
  run.Fail("a", "e1");
  run.RetryNow("a");
  EXPECT_EQ(run.Complete("a", "ok"), AttemptOutcome::kCompleted);
  EXPECT_EQ(run.Task("a").task().attempt(), 2);
  EXPECT_EQ(run.Task("a").task().error(), "");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
}

TEST(TaskflowDriver, Retries_DefaultIsOneAttemptUnlessMaxAttemptsPerTask) {
  DriverHarness once(R"({"name": "f", "phases": [{"id": "a", "agent": "c", "task": "t"}]})");
  once.Start();
  EXPECT_EQ(once.Task("a").max_attempts(), 1);
  DriverHarness flow_wide(R"({"name": "f", "maxAttemptsPerTask": 4,
      "phases": [{"id": "a", "agent": "c", "task": "t"}]})");
  flow_wide.Start();
  EXPECT_EQ(flow_wide.Task("a").max_attempts(), 4);
}

// ---------------------------------------------------------------------------
// The run's output

TEST(TaskflowDriver, FinalOutput_ExplicitFinalPhaseWins) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A", "final": true},
      {"id": "b", "agent": "coder", "task": "B", "dependsOn": ["a"]}]})");
  run.Start();
  run.Complete("a", "the answer");
  run.Complete("b", "a footnote");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.run().output(), "the answer");
}

TEST(TaskflowDriver, FinalOutput_WithoutFinalIsLastPhaseInArrayOrder) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"}]})");
  run.Start();
  run.Complete("b", "from b");
  run.Complete("a", "from a");
  EXPECT_EQ(run.run().output(), "from b");
}

TEST(TaskflowDriver, RunFinished_EmittedOnceWithStatusAndOutput) {
  DriverHarness run(R"({"name": "f", "phases": [{"id": "a", "agent": "c", "task": "t"}]})");
  run.Start();
  run.Complete("a", "out");
  run.Advance();  // an extra Advance after the end changes nothing
  int finished = 0;
  for (const v1::RunEvent& event : run.TakeEvents()) {
    if (!event.has_run_finished()) continue;
    ++finished;
    EXPECT_EQ(event.run_finished().status(), v1::RUN_STATUS_COMPLETED);
    EXPECT_EQ(event.run_finished().output(), "out");
  }
  EXPECT_EQ(finished, 1);
}

// ---------------------------------------------------------------------------
// Interpolation at dispatch time

TEST(TaskflowDriver, UnresolvedPlaceholder_FailsPhaseBeforeDispatch) {
  DriverHarness run(R"({"name": "f", "phases": [
      {"id": "x", "agent": "coder", "task": "list", "output": "json"},
      {"id": "y", "agent": "coder", "task": "use {steps.x.json.name}", "dependsOn": ["x"]}]})");
  run.Start();
  run.Complete("x", R"({"title": "no name here"})");
  EXPECT_EQ(run.PhaseState("y"), v1::TASK_STATE_FAILED);
  EXPECT_FALSE(run.HasTask("y")) << "nothing may be dispatched with a literal placeholder";
  EXPECT_THAT(run.Phase("y").error(),
              AllOf(StartsWith("phase 'y': unresolved placeholder {steps.x.json.name}"),
                    HasSubstr("not found")));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
}

}  // namespace
}  // namespace taskboard::engine
