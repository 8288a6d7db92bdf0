// `taskboard runs`, `show`, `cancel` and `flows ...` end to end against a
// scripted scheduler, plus what each rejects before calling it.

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/flows_command.h"
#include "tools/cli/runs_command.h"
#include "tools/cli/show_command.h"
#include "tools/cli/workers_command.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::At;
using testing::Cli;
using testing::ClosedPort;
using ::testing::ElementsAre;
using testing::ExampleFlow;
using testing::FakeScheduler;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::kAuditFlow;
using testing::kAuditMidRun;
using testing::MakeRun;
using ::testing::Not;
using testing::ParseText;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

// --- runs --------------------------------------------------------------------

v1::ListRunsResponse TwoRuns() {
  return ParseText<v1::ListRunsResponse>(R"pb(
    runs {
      run_id: "r-2"
      flow_name: "audit"
      kind: FLOW_KIND_TASKFLOW
      status: RUN_STATUS_RUNNING
      created_at { seconds: 1699999900 }
      usage { cost_usd: 0.0132 }
      spec {
        taskflow {
          phases { id: "a" }
          phases { id: "b" }
        }
      }
      phases { phase_id: "a" state: TASK_STATE_COMPLETED }
    }
    runs {
      run_id: "b-1"
      flow_name: "triage"
      kind: FLOW_KIND_BOARD
      status: RUN_STATUS_FAILED
      created_at { seconds: 1699990000 }
      tasks_total: 5
      tasks_done: 3
    }
  )pb");
}

TEST(RunsCommand, Table_OneRowPerRunWithProgressCostAndAge) {
  std::ostringstream out;
  PrintRunTable(TwoRuns(), At(absl::ZeroDuration()), 0, out);
  EXPECT_EQ(out.str(),
            "RUN  FLOW    KIND      STATUS   DONE        COST    AGE\n"
            "r-2  audit   taskflow  running  1/2 phases  $0.013  1m\n"
            "b-1  triage  board     failed   3/5 tasks   -       2h\n");
}

TEST(RunsCommand, Table_RunsOfSeveralTenants_SayWhose) {
  v1::ListRunsResponse runs = TwoRuns();
  runs.mutable_runs(0)->set_tenant("acme");
  runs.mutable_runs(1)->set_tenant("globex");
  std::ostringstream out;
  PrintRunTable(runs, At(absl::ZeroDuration()), 0, out);
  EXPECT_EQ(out.str(),
            "RUN  TENANT  FLOW    KIND      STATUS   DONE        COST    AGE\n"
            "r-2  acme    audit   taskflow  running  1/2 phases  $0.013  1m\n"
            "b-1  globex  triage  board     failed   3/5 tasks   -       2h\n");
}

TEST(RunsCommand, SendsFiltersAndPrintsTheTable) {
  FakeScheduler scheduler;
  scheduler.SetRuns(TwoRuns());
  testing::CliResult result = Cli({"runs", "--status", "running,failed", "--status", "BLOCKED",
                                   "--flow", "audit", "--parent", "p-1", "--tenant", "globex",
                                   "--limit", "5", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(StartsWith("RUN  FLOW"), HasSubstr("\nb-1  triage  board")));
  const v1::ListRunsRequest request = scheduler.list_request();
  EXPECT_EQ(request.tenant(), "globex");
  EXPECT_THAT(request.statuses(),
              ElementsAre(v1::RUN_STATUS_RUNNING, v1::RUN_STATUS_FAILED, v1::RUN_STATUS_BLOCKED));
  EXPECT_EQ(request.flow_name(), "audit");
  EXPECT_EQ(request.parent_run_id(), "p-1");
  EXPECT_EQ(request.page_size(), 5);
}

TEST(RunsCommand, UnknownStatus_Exits2BeforeAnyNetworkCall) {
  testing::CliResult result =
      Cli({"runs", "--status", "done", "--scheduler", absl::StrCat("127.0.0.1:", ClosedPort())});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("taskboard runs: unknown status 'done' (pending, running"));
}

TEST(RunsCommand, LimitOutOfRange_IsAUsageError) {
  EXPECT_EQ(Cli({"runs", "--limit", "0"}).exit_code, 2);
}

TEST(RunsCommand, Json_PrintsTheResponse) {
  FakeScheduler scheduler;
  scheduler.SetRuns(TwoRuns());
  testing::CliResult result = Cli({"runs", "--json", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, AllOf(StartsWith("{\n"), HasSubstr(R"("runId": "r-2")")));
}

// --- show --------------------------------------------------------------------

v1::ListWorkersResponse TwoWorkers() {
  return ParseText<v1::ListWorkersResponse>(R"pb(
    workers {
      worker_id: "w-1"
      agents: [ "scout", "writer" ]
      tools: "read_file"
      free_slots: 3
      running: 1
      connected_at { seconds: 1699999400 }
      last_heartbeat { seconds: 1699999997 }
    }
    workers {
      worker_id: "w-2"
      agents: "noop"
      draining: true
      connected_at { seconds: 1699999940 }
    }
  )pb");
}

TEST(WorkersCommand, Table_OneRowPerWorkerWithStateSlotsAndAgents) {
  std::ostringstream out;
  PrintWorkerTable(TwoWorkers(), At(absl::ZeroDuration()), 0, out);
  EXPECT_EQ(out.str(),
            "WORKER  STATE     RUNNING  FREE  AGENTS        TOOLS      CONNECTED  LAST SEEN\n"
            "w-1     ready     1        3     scout,writer  read_file  10m        3s ago\n"
            "w-2     draining  0        0     noop          -          1m         -\n");
}

TEST(WorkersCommand, ListsTheConnectedWorkers) {
  FakeScheduler scheduler;
  scheduler.SetWorkers(TwoWorkers());
  testing::CliResult result = Cli({"workers", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(StartsWith("WORKER  STATE"), HasSubstr("\nw-2     draining")));
}

TEST(WorkersCommand, Drain_SendsIdGraceAndReason) {
  FakeScheduler scheduler;
  scheduler.SetWorkers(TwoWorkers());
  testing::CliResult result = Cli({"workers", "drain", "w-1", "--grace-seconds", "90", "--reason",
                                   "node upgrade", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "worker w-1: draining (1 running, grace 90s)\n");
  const v1::DrainWorkerRequest request = scheduler.drain_request();
  EXPECT_EQ(request.worker_id(), "w-1");
  EXPECT_EQ(request.grace_ms(), 90'000);
  EXPECT_EQ(request.reason(), "node upgrade");
}

TEST(WorkersCommand, Drain_UnknownWorker_Exits1WithTheSchedulersMessage) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli({"workers", "drain", "w-9", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("no connected worker has id 'w-9'"));
}

TEST(ShowCommand, Details_FrameTaskTableAndOutput) {
  v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  run.set_output("partial report\n");
  run.mutable_tasks(0)->set_attempt(2);
  run.mutable_tasks(0)->set_worker_id("w-1");
  *run.add_tasks() = ParseText<v1::Task>(R"pb(
    task_id: "files/3"
    phase_id: "files"
    agent: "auditor"
    state: TASK_STATE_RUNNING
    attempt: 1
    worker_id: "w-2"
    started_at { seconds: 1700000050 })pb");
  std::ostringstream out;
  PrintRunDetails(run, At(absl::Seconds(65)), TerminalInfo{}, out);
  EXPECT_THAT(out.str(),
              AllOf(StartsWith("◐ taskflow audit  2/6 phases"),
                    HasSubstr("\ntasks:\n"
                              "TASK      STATE    AGENT    ATTEMPT  WORKER  DURATION  NOTE\n"
                              "precheck  failed   linter   2        w-1     -         failed: "
                              "exit status 3: config not found\n"
                              "files/3   running  auditor  1        w-2     15.0s\n"),
                    HasSubstr("\noutput:\npartial report\n")));
}

TEST(ShowCommand, EarlierAttempts_ListedUnderTheTaskTableOldestFirst) {
  v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  *run.mutable_tasks(0)->add_earlier_attempts() = ParseText<v1::TaskAttempt>(R"pb(
    attempt: 1
    worker_id: "w-1"
    started_at { seconds: 1700000000 }
    ended_at { seconds: 1700000002 nanos: 100000000 }
    ended: "failed"
    detail: "exit status 3:\n  config not found")pb");
  *run.mutable_tasks(0)->add_earlier_attempts() = ParseText<v1::TaskAttempt>(R"pb(
    attempt: 2
    worker_id: "w-2"
    started_at { seconds: 1700000010 }
    ended_at { seconds: 1700000040 }
    ended: "lease_expired"
    detail: "worker 'w-2' sent no heartbeat for 30000 ms")pb");
  *run.mutable_tasks(0)->add_earlier_attempts() =
      ParseText<v1::TaskAttempt>(R"pb(attempt: 3 ended: "returned")pb");
  std::ostringstream out;
  PrintRunDetails(run, At(absl::Seconds(65)), TerminalInfo{}, out);
  EXPECT_THAT(out.str(),
              HasSubstr("\nearlier attempts:\n"
                        "  precheck  attempt 1 on w-1: failed after 2.1s: exit status 3: config "
                        "not found\n"
                        "  precheck  attempt 2 on w-2: lease expired after 30.0s: worker 'w-2' "
                        "sent no heartbeat for 30000 ms\n"
                        "  precheck  attempt 3: returned\n"));
}

TEST(ShowCommand, NoEarlierAttempts_NoSuchBlock) {
  std::ostringstream out;
  PrintRunDetails(MakeRun(kAuditMidRun, kAuditFlow), At(absl::Seconds(65)), TerminalInfo{}, out);
  EXPECT_THAT(out.str(), Not(HasSubstr("earlier attempts")));
}

TEST(ShowCommand, FetchesTheRun) {
  FakeScheduler scheduler;
  scheduler.SetRun(MakeRun(kAuditMidRun, kAuditFlow));
  testing::CliResult result = Cli({"show", "r-7", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(StartsWith("◐ taskflow audit"), HasSubstr("┌ ◐  files")));

  result = Cli({"show", "r-7", "--json", "--scheduler", scheduler.address()});
  EXPECT_THAT(result.out, HasSubstr(R"("status": "RUN_STATUS_RUNNING")"));

  result = Cli({"show", "r-404", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "taskboard show: NOT_FOUND: run 'r-404' not found\n");
}

TEST(ShowCommand, Billed_AfterTheFrameWithTheBudget) {
  v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  *run.mutable_billed() =
      ParseText<v1::Usage>("input_tokens: 12000 output_tokens: 3100 cost_usd: 0.42");
  *run.mutable_budget() = ParseText<v1::RunBudget>("usd: 0.5 tokens: 100000");
  std::ostringstream out;
  PrintRunDetails(run, At(absl::Seconds(65)), TerminalInfo{}, out);
  EXPECT_THAT(out.str(), HasSubstr("↳ discover\nbilled ↑12k ↓3.1k $0.420 of budget $0.500 / 100k "
                                   "tokens\n"));

  // Nothing billed and no budget: no line.
  run.clear_billed();
  run.clear_budget();
  out.str("");
  PrintRunDetails(run, At(absl::Seconds(65)), TerminalInfo{}, out);
  EXPECT_THAT(out.str(), Not(HasSubstr("billed")));
}

TEST(ShowCommand, PausedOnItsBudget_StatusErrorAndHowToContinue) {
  FakeScheduler scheduler;
  scheduler.SetRun(MakeRun(R"pb(
    run_id: "r-1"
    flow_name: "audit"
    kind: FLOW_KIND_BOARD
    status: RUN_STATUS_PAUSED
    error: "paused: run r-1's budget of $0.5000 is reached: $0.4800 billed, $0.0000 in calls "
           "still running, and this call may cost up to $0.0500"
    billed { input_tokens: 20000 output_tokens: 4000 cost_usd: 0.48 }
    budget { usd: 0.5 })pb"));
  testing::CliResult result = Cli({"show", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              AllOf(StartsWith("‖ board audit  0/0 tasks · paused"),
                    HasSubstr("\nbilled ↑20k ↓4.0k $0.480 of budget $0.500\n"),
                    HasSubstr("\nerror: paused: run r-1's budget of $0.5000 is reached: "),
                    HasSubstr("\n  raise its budget and continue: `taskboard resume r-1 "
                              "--budget-usd X` (X: the new total in dollars, above the $0.480 "
                              "billed)\n")));
}

// A plan whose step `storage` is carried out by the supervisor run c-1.
constexpr char kNestedPlan[] = R"pb(
  run_id: "p-1"
  flow_name: "migrate"
  kind: FLOW_KIND_PLAN_AND_EXECUTE
  status: RUN_STATUS_COMPLETED
  board_meta: "completed"
  child_run_ids: "c-1"
  tasks {
    task_id: "storage"
    role: "step"
    state: TASK_STATE_COMPLETED
    child_run_id: "c-1"
    title: "Migrate storage"
  }
)pb";
constexpr char kNestedChild[] = R"pb(
  run_id: "c-1"
  flow_name: "migrate/storage"
  kind: FLOW_KIND_SUPERVISOR
  status: RUN_STATUS_COMPLETED
  board_meta: "completed"
  parent_run_id: "p-1"
  tasks {
    task_id: "edit"
    role: "worker"
    agent: "coder"
    state: TASK_STATE_COMPLETED
    reviews { iteration: 1 verdict: "accepted" score: 0.8 }
  }
)pb";

TEST(ShowCommand, ChildRuns_NestedUnderTheStepTheyCarryOut) {
  FakeScheduler scheduler;
  scheduler.SetRun(MakeRun(kNestedPlan));
  scheduler.AddOtherRun(MakeRun(kNestedChild));
  testing::CliResult result = Cli({"show", "p-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              StartsWith("✓ plan_and_execute migrate  1/1 task · completed (completed) · run p-1\n"
                         "    ✓  storage  step  Migrate storage\n"
                         "       ↳ ✓ supervisor migrate/storage  1/1 task · completed "
                         "(completed) · run c-1\n"
                         "               ✓  edit  worker  coder  accepted 0.80\n"));
  EXPECT_THAT(scheduler.get_run_ids(), ElementsAre("p-1", "c-1"));
}

// A taskflow whose map phase runs one supervisor per topic (c-1, c-2) and
// whose last phase is a plan; the snapshot lists the items out of order.
constexpr char kComposeFlow[] = R"(
name: compose
phases:
  - {id: topics, agent: lead, task: list topics, output: json}
  - id: research
    type: map
    over: "{steps.topics.json}"
    agent: researcher
    task: "Research {item}"
    supervise: {reviewCriteria: [cites sources]}
    dependsOn: [topics]
  - {id: report, type: plan, agent: writer, task: "Report on {steps.research.output}",
     dependsOn: [research]}
)";
constexpr char kComposeRun[] = R"pb(
  run_id: "t-1"
  flow_name: "compose"
  kind: FLOW_KIND_TASKFLOW
  status: RUN_STATUS_RUNNING
  child_run_ids: "c-1"
  child_run_ids: "c-2"
  phases { phase_id: "topics" type: PHASE_TYPE_AGENT state: TASK_STATE_COMPLETED }
  phases {
    phase_id: "research"
    type: PHASE_TYPE_MAP
    state: TASK_STATE_RUNNING
    items_total: 2
    items_done: 1
  }
  tasks { task_id: "topics" phase_id: "topics" agent: "lead" state: TASK_STATE_COMPLETED }
  tasks {
    task_id: "research[1]"
    phase_id: "research"
    item_index: 1
    state: TASK_STATE_RUNNING
    child_run_id: "c-2"
  }
  tasks {
    task_id: "research[0]"
    phase_id: "research"
    item_index: 0
    state: TASK_STATE_COMPLETED
    child_run_id: "c-1"
  }
)pb";

TEST(ShowCommand, MapOfSupervisors_EachItemsChildRunNestedUnderTheMapPhase) {
  FakeScheduler scheduler;
  scheduler.SetRun(MakeRun(kComposeRun, kComposeFlow));
  scheduler.AddOtherRun(MakeRun(R"pb(
    run_id: "c-1"
    flow_name: "compose/research[0]"
    kind: FLOW_KIND_SUPERVISOR
    status: RUN_STATUS_COMPLETED
    parent_run_id: "t-1"
    tasks {
      task_id: "history"
      role: "worker"
      agent: "researcher"
      state: TASK_STATE_COMPLETED
      reviews { iteration: 1 verdict: "accepted" score: 0.9 }
    }
  )pb"));
  scheduler.AddOtherRun(MakeRun(R"pb(
    run_id: "c-2"
    flow_name: "compose/research[1]"
    kind: FLOW_KIND_SUPERVISOR
    status: RUN_STATUS_RUNNING
    parent_run_id: "t-1"
    tasks { task_id: "planner" role: "planner" agent: "lead" state: TASK_STATE_RUNNING }
  )pb"));
  testing::CliResult result = Cli({"show", "t-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              StartsWith("◐ taskflow compose  1/3 phases · running · run t-1\n"
                         "    ✓  topics    agent  lead\n"
                         "    ◐  research  map    researcher  [█████░░░░░] 1/2\n"
                         "       ↳ ✓ supervisor compose/research[0]  1/1 task · completed · run "
                         "c-1\n"
                         "               ✓  history  worker  researcher  accepted 0.90\n"
                         "       ↳ ◐ supervisor compose/research[1]  0/1 task · running · run "
                         "c-2\n"
                         "               ◐  planner  planner  lead\n"
                         "    ○  report    plan   writer\n"));
  EXPECT_THAT(scheduler.get_run_ids(), UnorderedElementsAre("t-1", "c-1", "c-2"));
}

// repo-digest as `show` sees it: discover, then two summarize items ran (the
// snapshot lists them in another order), the report did not; GetTask knows
// the calls of the three that ran.
void ScriptDigestTasks(FakeScheduler& scheduler, int summarize0_calls = 1) {
  scheduler.SetRun(MakeRun(R"pb(
                             run_id: "r-3"
                             flow_name: "repo-digest"
                             kind: FLOW_KIND_TASKFLOW
                             status: RUN_STATUS_COMPLETED
                             output: "digest"
                             tasks {
                               task_id: "summarize[1]"
                               attempt: 1
                               started_at { seconds: 1700000003 }
                             }
                             tasks { task_id: "report" }
                             tasks {
                               task_id: "discover"
                               attempt: 1
                               started_at { seconds: 1700000001 }
                             }
                             tasks {
                               task_id: "summarize[0]"
                               attempt: 1
                               started_at { seconds: 1700000002 }
                             }
                           )pb",
                           testing::kDigestFlow));
  // summarize[0] reads README.md (`calls` times); summarize[1]'s read hits
  // the cache.
  v1::Observation read = ParseText<v1::Observation>(
      R"pb(run_id: "r-3" tool_name: "read_file" args_json: "{\"path\":\"README.md\"}")pb");
  v1::PriorWork prior_work =
      ParseText<v1::PriorWork>(R"pb(meta { policy: "declared_deps_only" available: 1 })pb");
  v1::GetTaskResponse discover;
  discover.mutable_task()->set_task_id("discover");
  discover.mutable_task()->set_run_id("r-3");
  discover.mutable_prior_work()->mutable_meta()->set_policy("declared_deps_only");
  scheduler.AddTask(discover);

  v1::GetTaskResponse first = discover;
  first.mutable_task()->set_task_id("summarize[0]");
  *first.mutable_prior_work() = prior_work;
  read.set_task_id("summarize[0]");
  read.set_duration_ms(4);
  for (int i = 0; i < summarize0_calls; ++i) *first.add_tool_calls() = read;
  scheduler.AddTask(first);

  v1::GetTaskResponse second = first;
  second.mutable_task()->set_task_id("summarize[1]");
  second.clear_tool_calls();
  read.set_task_id("summarize[1]");
  read.set_duration_ms(0);
  read.set_cached(true);
  read.set_cache_age_ms(1200);
  read.mutable_source_task()->set_run_id("r-3");
  read.mutable_source_task()->set_task_id("summarize[0]");
  *second.add_tool_calls() = read;
  scheduler.AddTask(second);
}

TEST(ShowCommand, ToolCalls_ListedPerTaskThatRanBeforeTheOutput) {
  FakeScheduler scheduler;
  ScriptDigestTasks(scheduler);
  testing::CliResult result = Cli({"show", "r-3", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.task_requests(), ElementsAre("discover", "summarize[0]", "summarize[1]"))
      << "in the order they started; no GetTask for the report, which never ran";
  EXPECT_THAT(result.out,
              HasSubstr("\ntool calls:\n"
                        "discover  no tool calls\n"
                        "  prior work: declared_deps_only, 0 of 0 observations, ~0 tokens\n"
                        "summarize[0]  1 call\n"
                        "  prior work: declared_deps_only, 0 of 1 observation, ~0 tokens\n"
                        "  ✓ read_file {\"path\":\"README.md\"}  4ms\n"
                        "summarize[1]  1 call, 1 cached\n"
                        "  prior work: declared_deps_only, 0 of 1 observation, ~0 tokens\n"
                        "  ✓ read_file {\"path\":\"README.md\"}  (cached 1.2s old, from "
                        "summarize[0])\n"
                        "\noutput:\ndigest\n"));
}

TEST(ShowCommand, TasksLimit_FetchesTheFirstNThatRanAndCountsTheRest) {
  FakeScheduler scheduler;
  ScriptDigestTasks(scheduler);
  testing::CliResult result =
      Cli({"show", "r-3", "--tasks", "1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.task_requests(), ElementsAre("discover"));
  EXPECT_THAT(result.out,
              HasSubstr("discover  no tool calls\n"
                        "  prior work: declared_deps_only, 0 of 0 observations, ~0 "
                        "tokens\n"
                        "… 2 more tasks ran: --tasks 0 lists them all, --task ID one\n"));
  EXPECT_EQ(Cli({"show", "r-3", "--tasks", "-1"}).exit_code, 2);
}

TEST(ShowCommand, TaskFlag_FetchesOnlyThatTaskAndListsEveryCall) {
  FakeScheduler scheduler;
  ScriptDigestTasks(scheduler, /*summarize0_calls=*/12);
  testing::CliResult result = Cli({"show", "r-3", "--scheduler", scheduler.address()});
  EXPECT_THAT(result.out, HasSubstr("  ✓ read_file {\"path\":\"README.md\"}  4ms\n"
                                    "  … 2 more calls: taskboard show r-3 --task summarize[0]\n"))
      << "ten calls per task by default";

  result = Cli({"show", "--task", "summarize[0]", "r-3", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.task_requests(),
              ElementsAre("discover", "summarize[0]", "summarize[1]", "summarize[0]"));
  const std::string calls = result.out.substr(result.out.find("\ntool calls:\n"));
  // The title (after a blank line), the task, its prior work, 12 calls, the output.
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 2 + 1 + 1 + 12 + 3) << calls;
  EXPECT_THAT(calls, Not(HasSubstr("more calls")));
}

TEST(ShowCommand, JsonWithTask_PrintsTheTasksAsOneJsonArray) {
  FakeScheduler scheduler;
  ScriptDigestTasks(scheduler);
  testing::CliResult result = Cli({"show", "r-3", "--json", "--task", "discover", "--task",
                                   "summarize[1]", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  absl::StatusOr<Json> tasks = ParseJson(result.out);
  ASSERT_TRUE(tasks.ok()) << result.out;
  ASSERT_TRUE(tasks->is_array());
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0]["task"]["taskId"], "discover");
  EXPECT_EQ((*tasks)[1]["toolCalls"][0]["cached"], true);
  EXPECT_EQ((*tasks)[1]["toolCalls"][0]["sourceTask"]["taskId"], "summarize[0]");

  result = Cli({"show", "r-3", "--json", "--scheduler", scheduler.address()});
  EXPECT_THAT(result.out, AllOf(StartsWith("{\n"), HasSubstr(R"("runId": "r-3")")));
  EXPECT_THAT(scheduler.task_requests(), ElementsAre("discover", "summarize[1]"))
      << "--json alone prints the run: no GetTask";
}

TEST(ShowCommand, UnknownTask_Exits1WithTheSchedulersMessage) {
  FakeScheduler scheduler;
  ScriptDigestTasks(scheduler);
  testing::CliResult result =
      Cli({"show", "r-3", "--task", "nope", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, IsEmpty());
  EXPECT_EQ(result.err, "taskboard show: NOT_FOUND: run r-3 has no task 'nope'\n");
}

// --- cancel ------------------------------------------------------------------

TEST(CancelCommand, SendsReasonAndPrintsTheNewStatus) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"cancel", "r-7", "--reason", "wrong args", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "run r-7: cancelled\n");
  EXPECT_EQ(scheduler.cancel_request().reason(), "wrong args");
}

TEST(CancelCommand, AlreadyFinished_Exits1) {
  FakeScheduler scheduler;
  scheduler.FailNextCall(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "run 'r-7' already finished"));
  testing::CliResult result = Cli({"cancel", "r-7", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "taskboard cancel: FAILED_PRECONDITION: run 'r-7' already finished\n");
}

TEST(CancelCommand, NothingListening_Exits2) {
  const std::string address = absl::StrCat("127.0.0.1:", ClosedPort());
  testing::CliResult result =
      Cli({"cancel", "r-7", "--scheduler", address, "--failover-timeout", "0"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, StartsWith("taskboard cancel: cannot reach the scheduler at " + address));
}

// --- flows -------------------------------------------------------------------

std::vector<v1::SavedFlow> SavedFlows() {
  return {ParseText<v1::SavedFlow>(R"pb(
            name: "audit"
            version: 2
            created_at_unix_ms: 1699996400000
            source: "name: audit\nphases: []"
            spec {
              name: "audit"
              description: "Audit a repo"
              taskflow {}
            })pb"),
          ParseText<v1::SavedFlow>(R"pb(
            name: "triage"
            version: 1
            spec {
              name: "triage"
              board { tasks { id: "a" } }
            })pb")};
}

TEST(FlowsCommand, Save_ChecksLocallyThenSendsTheSource) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"flows", "save", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "saved saved-flow version 3\n");
  EXPECT_THAT(scheduler.save_request().source().text(), HasSubstr("name: repo-digest"));

  result = Cli({"flows", "save", ExampleFlow("broken.json"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("broken.json: invalid flow"));
  EXPECT_EQ(scheduler.calls(), 1) << "the invalid flow never reached the scheduler";
}

TEST(FlowsCommand, List_FollowsPagesIntoOneTable) {
  std::ostringstream out;
  v1::ListFlowsResponse flows;
  for (const v1::SavedFlow& flow : SavedFlows()) *flows.add_flows() = flow;
  PrintFlowTable(flows, absl::FromUnixSeconds(1700000000), 0, out);
  EXPECT_EQ(out.str(),
            "FLOW    VERSION  KIND      SAVED   DESCRIPTION\n"
            "audit   2        taskflow  1h ago  Audit a repo\n"
            "triage  1        board     -\n");

  FakeScheduler scheduler;
  scheduler.SetFlows(SavedFlows());
  testing::CliResult result = Cli({"flows", "list", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("\naudit "), HasSubstr("\ntriage ")));
}

TEST(FlowsCommand, Show_PrintsTheSavedSourceOrTheEncodedSpec) {
  FakeScheduler scheduler;
  scheduler.SetFlows(SavedFlows());
  testing::CliResult result = Cli({"flows", "show", "audit", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.out, "name: audit\nphases: []\n");
  result = Cli({"flows", "show", "triage", "--version", "1", "--scheduler", scheduler.address()});
  EXPECT_THAT(result.out, AllOf(HasSubstr(R"("name": "triage")"), HasSubstr(R"("board")")));
  result = Cli({"flows", "show", "audit", "--version", "9", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "taskboard flows show: NOT_FOUND: flow 'audit' not found\n");
}

TEST(FlowsCommand, Delete_PrintsHowManyVersionsWent) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli({"flows", "delete", "audit", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "deleted audit (2 versions)\n");
}

TEST(FlowsCommand, Bare_ListsFlowsWithTheirArgs) {
  std::vector<v1::SavedFlow> flows = SavedFlows();
  v1::ArgSpec* dir = flows[0].mutable_spec()->add_args();
  dir->set_name("dir");
  dir->set_required(true);
  dir->set_description("repo to audit");
  v1::ArgSpec* depth = flows[0].mutable_spec()->add_args();
  depth->set_name("depth");
  depth->mutable_default_value()->set_number_value(2);
  FakeScheduler scheduler;
  scheduler.SetFlows(flows);
  testing::CliResult result = Cli({"flows", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("\naudit "), HasSubstr("Audit a repo"), HasSubstr("\ntriage "),
                    HasSubstr("\nargs of audit (`taskboard run audit key=value ...`):\n"
                              "ARG    REQUIRED  DEFAULT  DESCRIPTION\n"
                              "dir    yes       -        repo to audit\n"
                              "depth  no        2\n"),
                    Not(HasSubstr("args of triage"))));
}

TEST(FlowsCommand, Bare_NoSavedFlows_SaysHowToSaveOne) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli({"flows", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("no saved flows (save one with `taskboard flows save FILE`)"));
}

// --- the command line as a whole ------------------------------------------------

TEST(CliApp, HelpExits0AndListsEveryCommand) {
  testing::CliResult result = Cli({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* command :
       {"validate", "run", "watch", "show", "runs", "cancel", "resume", "flows", "dev", "usage"}) {
    EXPECT_THAT(result.out, HasSubstr(absl::StrCat("\n  ", command, " "))) << command;
  }
}

TEST(CliApp, NoCommandOrUnknownCommand_IsAUsageError) {
  EXPECT_EQ(Cli({}).exit_code, 2);
  testing::CliResult result = Cli({"launch"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "taskboard: unknown command 'launch' (see taskboard --help)\n");
}

TEST(CliApp, ValidateRunsThroughTheSameParser) {
  testing::CliResult result = Cli({"validate", "-q", ExampleFlow("repo-digest.yaml")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("valid: repo-digest"));
  EXPECT_THAT(result.err, IsEmpty());
}

}  // namespace
}  // namespace taskboard::cli
