#include "tools/cli/run_render.h"
#include "tools/cli/tasks_by_phase.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/display_width.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::At;
using ::testing::HasSubstr;
using testing::kAuditFlow;
using testing::kAuditMidRun;
using testing::kDigestFlow;
using testing::MakeRun;
using ::testing::Not;

// Five tasks: fetch, then three in parallel, then decide (with a long edge
// back to fetch).
constexpr absl::string_view kTriageBoard = R"(
name: triage
kind: board
board:
  tasks:
    - {id: fetch, agent: scout, task: fetch}
    - {id: reproduce, agent: tester, deps: [fetch], task: reproduce}
    - {id: locate, agent: scout, deps: [fetch], task: locate}
    - {id: duplicates, agent: researcher, deps: [fetch], optional: true, task: dups}
    - {id: decide, agent: triager, deps: [reproduce, locate, duplicates, fetch], task: decide}
)";

TEST(RunRender, TaskflowMidRun_ShowsLayersProgressVerdictAndReasons) {
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  EXPECT_EQ(RenderRun(run, At(absl::Seconds(65))),
            "◐ taskflow audit  2/6 phases · running · ↑9.4k ↓2.3k $0.013 · 1m05s · run r-7\n"
            "  ┌ ✓  discover  agent   scout     12.3s  ↑1.2k ↓310 $0.0021\n"
            "  └ ✗  precheck  agent   linter    2.0s  failed: exit status 3: config not found\n"
            "  ┌ ◐  files     map     auditor   [███░░░░░░░] 12/40 · 1 failed  51.0s  "
            "↑8.2k ↓2.0k $0.011\n"
            "  ├ ✓  policy    gate    reviewer  3.1s  PASS: no secrets found\n"
            "  └ ⊘  lint      agent   linter    skipped: upstream phase 'precheck' failed\n"
            "    ○  report    reduce  writer    ↳ discover\n");
}

TEST(RunRender, BlockedRun_ShowsBlockingGateAndSkippedFinal) {
  const v1::Run run = MakeRun(R"pb(
                                run_id: "r-8"
                                flow_name: "repo-digest"
                                kind: FLOW_KIND_TASKFLOW
                                status: RUN_STATUS_BLOCKED
                                created_at { seconds: 1700000000 }
                                finished_at { seconds: 1700000080 }
                                usage { input_tokens: 52000 output_tokens: 6700 cost_usd: 0.095 }
                                phases {
                                  phase_id: "discover"
                                  type: PHASE_TYPE_AGENT
                                  state: TASK_STATE_COMPLETED
                                  started_at { seconds: 1700000000 }
                                  finished_at { seconds: 1700000010 }
                                }
                                phases {
                                  phase_id: "summarize"
                                  type: PHASE_TYPE_MAP
                                  state: TASK_STATE_COMPLETED
                                  items_total: 40
                                  items_done: 40
                                  started_at { seconds: 1700000010 }
                                  finished_at { seconds: 1700000070 }
                                }
                                phases {
                                  phase_id: "check"
                                  type: PHASE_TYPE_GATE
                                  state: TASK_STATE_COMPLETED
                                  started_at { seconds: 1700000070 }
                                  finished_at { seconds: 1700000075 }
                                  gate { pass: false reason: "summaries are empty" }
                                }
                                phases {
                                  phase_id: "lint"
                                  type: PHASE_TYPE_AGENT
                                  state: TASK_STATE_COMPLETED
                                  started_at { seconds: 1700000070 }
                                  finished_at { seconds: 1700000072 }
                                }
                                phases {
                                  phase_id: "report"
                                  type: PHASE_TYPE_REDUCE
                                  state: TASK_STATE_SKIPPED
                                  skip_reason: "gate 'check' blocked: summaries are empty"
                                }
                              )pb",
                              kDigestFlow);
  // ⛔ is two columns wide; every icon gets a two-column cell so ids align.
  EXPECT_EQ(RenderRun(run, At(absl::Minutes(5))),
            "⛔ taskflow repo-digest  4/5 phases · blocked · ↑52k ↓6.7k $0.095 · 1m20s · run r-8\n"
            "    ✓  discover   agent   scout       10.0s\n"
            "    ✓  summarize  map     summarizer  [██████████] 40/40  1m00s\n"
            "  ┌ ⛔ check      gate    reviewer    5.0s  BLOCK: summaries are empty\n"
            "  └ ✓  lint       agent   linter      2.0s\n"
            "    ⊘  report     reduce  writer      ↳ summarize  "
            "skipped: gate 'check' blocked: summaries are empty\n");
}

TEST(RunRender, CompletedRun_HeaderShowsCostAndDuration) {
  const v1::Run run =
      MakeRun(R"pb(
                run_id: "r-9"
                flow_name: "repo-digest"
                kind: FLOW_KIND_TASKFLOW
                status: RUN_STATUS_COMPLETED
                created_at { seconds: 1700000000 }
                finished_at { seconds: 1700003725 }
                usage { input_tokens: 1250000 output_tokens: 98000 cost_usd: 1.2345 }
                phases { phase_id: "discover" state: TASK_STATE_COMPLETED }
                phases { phase_id: "summarize" state: TASK_STATE_COMPLETED }
                phases { phase_id: "check" state: TASK_STATE_COMPLETED }
                phases { phase_id: "lint" state: TASK_STATE_COMPLETED }
                phases { phase_id: "report" state: TASK_STATE_COMPLETED }
              )pb",
              kDigestFlow);
  // Elapsed is creation to finish, not to `now`.
  EXPECT_EQ(RenderRunHeader(run, At(absl::Hours(5))),
            "✓ taskflow repo-digest  5/5 phases · completed · ↑1.2M ↓98k $1.23 · 1h02m · run r-9");
}

TEST(RunRender, Board_RendersTasksByLayerWithAttemptsAndErrors) {
  const v1::Run run = MakeRun(R"pb(
                                run_id: "b-1"
                                flow_name: "triage"
                                kind: FLOW_KIND_BOARD
                                status: RUN_STATUS_RUNNING
                                created_at { seconds: 1700000000 }
                                tasks_total: 5
                                tasks_done: 2
                                tasks {
                                  task_id: "fetch"
                                  agent: "scout"
                                  state: TASK_STATE_COMPLETED
                                  attempt: 1
                                  started_at { seconds: 1700000000 }
                                  finished_at { seconds: 1700000004 }
                                  usage { input_tokens: 800 output_tokens: 120 cost_usd: 0.0008 }
                                }
                                tasks {
                                  task_id: "reproduce"
                                  agent: "tester"
                                  state: TASK_STATE_RUNNING
                                  attempt: 2
                                  started_at { seconds: 1700000020 }
                                }
                                tasks {
                                  task_id: "locate"
                                  agent: "scout"
                                  state: TASK_STATE_COMPLETED
                                  attempt: 1
                                  started_at { seconds: 1700000004 }
                                  finished_at { seconds: 1700000009 }
                                }
                                tasks {
                                  task_id: "duplicates"
                                  agent: "researcher"
                                  state: TASK_STATE_FAILED
                                  attempt: 1
                                  error: "http_get: 503 Service Unavailable"
                                }
                              )pb",
                              kTriageBoard);
  EXPECT_EQ(RenderRun(run, At(absl::Seconds(30))),
            "◐ board triage  2/5 tasks · running · 30.0s · run b-1\n"
            "    ✓  fetch       task  scout       4.0s  ↑800 ↓120 $0.0008\n"
            "  ┌ ◐  reproduce   task  tester      10.0s  attempt 2\n"
            "  ├ ✓  locate      task  scout       5.0s\n"
            "  └ ✗  duplicates  task  researcher  failed: http_get: 503 Service Unavailable\n"
            "    ○  decide      task  triager     ↳ fetch\n");
}

TEST(RunRender, BoardHeader_CountsCompletedTasksAgainstTheSpec) {
  // The run's counters cover the tasks created so far and count failures as
  // finished; the header counts completed tasks of the whole board.
  const v1::Run run = MakeRun(R"pb(
                                flow_name: "triage"
                                kind: FLOW_KIND_BOARD
                                status: RUN_STATUS_FAILED
                                tasks_total: 2
                                tasks_done: 2
                                tasks { task_id: "fetch" state: TASK_STATE_COMPLETED }
                                tasks { task_id: "locate" state: TASK_STATE_FAILED }
                              )pb",
                              kTriageBoard);
  EXPECT_EQ(RenderRunHeader(run, absl::FromUnixSeconds(0)), "✗ board triage  1/5 tasks · failed");
}

TEST(RunRender, PatternRun_LayersPlannedTasksByTheirDeps) {
  const v1::Run run = MakeRun(R"pb(
    run_id: "p-1"
    flow_name: "research"
    kind: FLOW_KIND_PLAN_AND_EXECUTE
    status: RUN_STATUS_RUNNING
    board_meta: "active"
    tasks_total: 3
    tasks_done: 1
    tasks { task_id: "plan" role: "planner" agent: "planner" state: TASK_STATE_COMPLETED }
    tasks {
      task_id: "step-1"
      role: "step"
      agent: "worker"
      state: TASK_STATE_DISPATCHED
      deps: "plan"
      title: "Find the\n sources"
    }
    tasks {
      task_id: "step-2"
      role: "step"
      agent: "worker"
      state: TASK_STATE_SKIPPED
      deps: "plan"
      skip_reason: "upstream step failed"
    }
  )pb");
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0)),
            "◐ plan_and_execute research  1/3 tasks · running (active) · run p-1\n"
            "    ✓  plan    planner  planner\n"
            "  ┌ ◌  step-1  step     worker   Find the sources\n"
            "  └ ⊘  step-2  step     worker   skipped: upstream step failed\n");
}

TEST(RunRender, SupervisorRun_ShowsRoundAndEachTasksLastVerdict) {
  const v1::Run run = MakeRun(R"pb(
    run_id: "s-1"
    flow_name: "docs"
    kind: FLOW_KIND_SUPERVISOR
    status: RUN_STATUS_RUNNING
    board_meta: "revising"
    tasks { task_id: "planner" role: "planner" agent: "lead" state: TASK_STATE_COMPLETED }
    tasks {
      task_id: "intro"
      role: "worker"
      agent: "writer"
      state: TASK_STATE_COMPLETED
      reviews { iteration: 1 verdict: "accepted" score: 0.9 feedback: "clear" }
    }
    tasks {
      task_id: "api"
      role: "worker"
      agent: "writer"
      state: TASK_STATE_PENDING
      reviews { iteration: 1 verdict: "needs-revision" score: 0.4 feedback: "add an\nexample" }
    }
    tasks {
      task_id: "faq"
      role: "worker"
      agent: "writer"
      state: TASK_STATE_COMPLETED
      reviews { iteration: 2 verdict: "escalate" feedback: "needs a human" }
    }
    tasks { task_id: "reviewer-1" role: "reviewer" agent: "lead" state: TASK_STATE_COMPLETED }
  )pb");
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0)),
            "◐ supervisor docs  4/5 tasks · running (revising, iteration 1) · run s-1\n"
            "  ┌ ✓  planner     planner   lead\n"
            "  ├ ✓  intro       worker    writer  accepted 0.90\n"
            "  ├ ○  api         worker    writer  needs-revision 0.40: add an example\n"
            "  ├ ✓  faq         worker    writer  round 2: escalate: needs a human\n"
            "  └ ✓  reviewer-1  reviewer  lead\n");
}

TEST(RunRender, StepCarriedOutByAChildRun_ShowsTheChildNestedBeneathIt) {
  const v1::Run run = MakeRun(R"pb(
    run_id: "p-1"
    flow_name: "migrate"
    kind: FLOW_KIND_PLAN_AND_EXECUTE
    status: RUN_STATUS_RUNNING
    board_meta: "active"
    child_run_ids: "c-1"
    tasks {
      task_id: "storage"
      role: "step"
      state: TASK_STATE_RUNNING
      child_run_id: "c-1"
      title: "Migrate storage"
    }
  )pb");
  const v1::Run child = MakeRun(R"pb(
    run_id: "c-1"
    flow_name: "migrate/storage"
    kind: FLOW_KIND_SUPERVISOR
    status: RUN_STATUS_RUNNING
    board_meta: "active"
    parent_run_id: "p-1"
    tasks { task_id: "planner" role: "planner" agent: "lead" state: TASK_STATE_COMPLETED }
    tasks { task_id: "edit" role: "worker" agent: "coder" state: TASK_STATE_DISPATCHED }
  )pb");
  // Without the child's snapshot the row names it.
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0)),
            "◐ plan_and_execute migrate  0/1 task · running (active) · run p-1\n"
            "    ◐  storage  step  ↳ run c-1  Migrate storage\n");
  absl::flat_hash_map<std::string, v1::Run> children = {{"c-1", child}};
  RenderOptions options;
  options.children = &children;
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0), options),
            "◐ plan_and_execute migrate  0/1 task · running (active) · run p-1\n"
            "    ◐  storage  step  Migrate storage\n"
            "       ↳ ◐ supervisor migrate/storage  1/2 tasks · running (active) · run c-1\n"
            "             ┌ ✓  planner  planner  lead\n"
            "             └ ◌  edit     worker   coder\n");
}

TEST(RunRender, PatternPhasesWithoutChildSnapshots_NameTheirChildRunsInItemOrder) {
  const v1::Run run = MakeRun(
      R"pb(
        run_id: "t-1"
        flow_name: "compose"
        kind: FLOW_KIND_TASKFLOW
        status: RUN_STATUS_RUNNING
        child_run_ids: "c-2"
        child_run_ids: "c-1"
        child_run_ids: "c-3"
        phases { phase_id: "research" state: TASK_STATE_COMPLETED }
        phases { phase_id: "report" state: TASK_STATE_RUNNING }
        tasks { task_id: "research[1]" phase_id: "research" item_index: 1 child_run_id: "c-2" }
        tasks { task_id: "research[0]" phase_id: "research" item_index: 0 child_run_id: "c-1" }
        tasks { task_id: "report" phase_id: "report" child_run_id: "c-3" }
      )pb",
      R"(
name: compose
phases:
  - {id: research, type: map, over: [a, b], agent: dev, task: "Research {item}", supervise: {}}
  - {id: report, type: plan, agent: dev, task: "Report", dependsOn: [research]}
)");
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0)),
            "◐ taskflow compose  1/2 phases · running · run t-1\n"
            "    ✓  research  map   dev  ↳ runs c-1, c-2\n"
            "    ◐  report    plan  dev  ↳ run c-3\n");
}

TEST(RunRender, StepCarriedOutByASavedTaskflow_NestsTheChildsPhases) {
  const v1::Run run = MakeRun(R"pb(
    run_id: "p-1"
    flow_name: "migrate"
    kind: FLOW_KIND_PLAN_AND_EXECUTE
    status: RUN_STATUS_RUNNING
    child_run_ids: "c-1"
    tasks { task_id: "storage" role: "step" state: TASK_STATE_RUNNING child_run_id: "c-1" }
  )pb");
  absl::flat_hash_map<std::string, v1::Run> children = {
      {"c-1", MakeRun(R"pb(
                        run_id: "c-1"
                        flow_name: "step-flow"
                        kind: FLOW_KIND_TASKFLOW
                        status: RUN_STATUS_RUNNING
                        phases { phase_id: "do" state: TASK_STATE_RUNNING }
                      )pb",
                      "name: step-flow\nargs: {goal: {}}\nphases: [{id: do, agent: coder, task: "
                      "\"{args.goal}\"}]\n")}};
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0), {.children = &children}),
            "◐ plan_and_execute migrate  0/1 task · running · run p-1\n"
            "    ◐  storage  step\n"
            "       ↳ ◐ taskflow step-flow  0/1 phase · running · run c-1\n"
            "               ◐  do  agent  coder\n");
}

// The audit run mid-way, rendered with `options`.
std::string AuditFrame(const RenderOptions& options) {
  return RenderRun(MakeRun(kAuditMidRun, kAuditFlow), At(absl::Seconds(65)), options);
}

TEST(RunRender, Width_CutsEveryLineToTheTerminal) {
  const std::string frame = AuditFrame({.width = 40});
  for (absl::string_view line : absl::StrSplit(frame, '\n', absl::SkipEmpty())) {
    EXPECT_LE(DisplayWidth(line), 40) << line;
  }
  EXPECT_THAT(frame, HasSubstr("  ┌ ◐  files     map     auditor   [███…\n"));
}

TEST(RunRender, Color_PaintsIconsButKeepsTheLayout) {
  const std::string frame = AuditFrame({.color = true});
  EXPECT_THAT(frame, AllOf(HasSubstr("\x1b[32m✓\x1b[0m"), HasSubstr("\x1b[31m✗\x1b[0m"),
                           HasSubstr("\x1b[1maudit\x1b[0m")));
  EXPECT_EQ(DisplayWidth(frame), DisplayWidth(AuditFrame({})));
}

TEST(RunRender, SpinnerFrame_ReplacesRunningIcons) {
  EXPECT_THAT(AuditFrame({.spinner_frame = 3}),
              AllOf(HasSubstr("⠸ taskflow audit"), HasSubstr("┌ ⠸  files"), Not(HasSubstr("◐"))));
}

TEST(RunRender, SnapshotWithoutSpec_UsesTheSchedulersLayers) {
  const v1::Run run = MakeRun(R"pb(
    flow_name: "x"
    kind: FLOW_KIND_TASKFLOW
    status: RUN_STATUS_PENDING
    phases { phase_id: "a" type: PHASE_TYPE_AGENT layer: 0 }
    phases { phase_id: "b" type: PHASE_TYPE_MAP layer: 1 }
    phases { phase_id: "c" type: PHASE_TYPE_GATE layer: 1 }
  )pb");
  EXPECT_EQ(RenderRun(run, absl::FromUnixSeconds(0)),
            "○ taskflow x  0/3 phases · pending\n"
            "    ○  a  agent\n"
            "  ┌ ○  b  map\n"
            "  └ ○  c  gate\n");
}

v1::Observation ToolCall(const std::string& task_id, bool cached = false) {
  v1::Observation call;
  call.set_task_id(task_id);
  call.set_tool_name("read_file");
  call.set_cached(cached);
  return call;
}

TEST(RunRender, WithToolTally_HeaderAndRowsCountCallsAndCacheHits) {
  v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  for (const char* item : {"files[0]", "files[1]"}) {
    v1::Task& task = *run.add_tasks();
    task.set_task_id(item);
    task.set_phase_id("files");
  }
  ToolTally tally;
  tally.Add(ToolCall("discover"));
  tally.Add(ToolCall("files[0]"));
  tally.Add(ToolCall("files[0]", /*cached=*/true));
  tally.Add(ToolCall("files[1]", /*cached=*/true));
  EXPECT_EQ(RenderRun(run, At(absl::Seconds(65)), {.tools = &tally}),
            "◐ taskflow audit  2/6 phases · running · ↑9.4k ↓2.3k $0.013 · 1m05s · tools 4 · "
            "cached 2 · run r-7\n"
            "  ┌ ✓  discover  agent   scout     12.3s  ↑1.2k ↓310 $0.0021  tools 1\n"
            "  └ ✗  precheck  agent   linter    2.0s  failed: exit status 3: config not found\n"
            "  ┌ ◐  files     map     auditor   [███░░░░░░░] 12/40 · 1 failed  51.0s  "
            "↑8.2k ↓2.0k $0.011  tools 3 (2 cached)\n"
            "  ├ ✓  policy    gate    reviewer  3.1s  PASS: no secrets found\n"
            "  └ ⊘  lint      agent   linter    skipped: upstream phase 'precheck' failed\n"
            "    ○  report    reduce  writer    ↳ discover\n");
}

TEST(RunRender, WithToolTallyWithoutCalls_FrameUnchanged) {
  const ToolTally none;
  EXPECT_EQ(AuditFrame({.tools = &none}), AuditFrame({}));
}

TEST(RunRender, BoardWithToolTally_EachTaskRowCountsItsCalls) {
  const v1::Run run =
      MakeRun(R"pb(
                flow_name: "triage"
                kind: FLOW_KIND_BOARD
                status: RUN_STATUS_RUNNING
                tasks { task_id: "fetch" agent: "scout" state: TASK_STATE_COMPLETED }
                tasks { task_id: "locate" agent: "scout" state: TASK_STATE_RUNNING }
              )pb",
              kTriageBoard);
  ToolTally tally;
  tally.Add(ToolCall("fetch"));
  tally.Add(ToolCall("locate", /*cached=*/true));
  const std::string frame = RenderRun(run, absl::FromUnixSeconds(0), {.tools = &tally});
  EXPECT_THAT(frame, AllOf(HasSubstr("\n    ✓  fetch       task  scout       tools 1\n"),
                           HasSubstr("  ├ ◐  locate      task  scout       tools 1 (1 cached)\n")));
}

TEST(RunRender, PhaseOutcome_NamesWhyAPhaseEnded) {
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  const TasksByPhase tasks(run);
  const auto outcome = [&](int index) {
    return PhaseOutcome(run.phases(index), tasks.Of(run.phases(index).phase_id()));
  };
  EXPECT_EQ(outcome(1), "failed: exit status 3: config not found");
  EXPECT_EQ(outcome(3), "PASS: no secrets found");
  EXPECT_EQ(outcome(4), "skipped: upstream phase 'precheck' failed");
  EXPECT_EQ(outcome(2), "");
}

}  // namespace
}  // namespace taskboard::cli
