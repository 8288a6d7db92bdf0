// `taskboard run`, `watch` and `resume` end to end: CLI11 parsing, the local
// checks that must fail before any network call, and following a run over
// real gRPC against a scripted scheduler.

#include "tools/cli/run_command.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/proto_value.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::Cli;
using testing::ClosedPort;
using ::testing::ElementsAre;
using testing::ExampleFlow;
using testing::FakeScheduler;
using testing::FlowErrorsStatus;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MakeRun;
using ::testing::Not;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::string NowhereAddress() { return absl::StrCat("127.0.0.1:", ClosedPort()); }

// repo-digest (examples/flows) as the scheduler reports it: pending, then
// discover running, discover done, and finished with `status`. Each of
// `discover_calls` ("list_files" or "read_file cached") is an observation
// event of discover while it runs.
void ScriptDigestRun(FakeScheduler& scheduler, const std::string& final_status,
                     const std::string& output,
                     const std::vector<std::string>& discover_calls = {}) {
  const std::string flow_text = R"(
name: repo-digest
phases:
  - {id: discover, agent: scout, task: list}
  - {id: report, type: reduce, from: [discover], agent: writer, task: "{steps.discover.output}"}
)";
  const std::string base =
      R"pb(run_id: "r-1"
           flow_name: "repo-digest"
           kind: FLOW_KIND_TASKFLOW
           created_at { seconds: 1700000000 })pb";
  const auto snapshot = [&](absl::string_view rest) {
    return MakeRun(absl::StrCat(base, " ", rest), flow_text);
  };
  const std::string discover_running =
      R"pb(status: RUN_STATUS_RUNNING
           phases {
             phase_id: "discover"
             state: TASK_STATE_RUNNING
             started_at { seconds: 1700000001 }
           })pb";
  scheduler.SetRun(snapshot("status: RUN_STATUS_PENDING"));
  scheduler.AddEvent(
      R"pb(task_change { task { task_id: "discover" state: TASK_STATE_RUNNING } })pb",
      snapshot(discover_running));
  // Output deltas and observations leave the snapshot as it was.
  scheduler.AddEvent(R"pb(output_delta { task_id: "discover" text: "src/" })pb",
                     snapshot(discover_running));
  for (const std::string& call : discover_calls) {
    const std::vector<std::string> words = absl::StrSplit(call, ' ');
    scheduler.AddEvent(
        absl::StrCat(R"pb(observation { observation { task_id: "discover" tool_name: ")pb",
                     words[0], "\" cached: ", words.size() > 1 ? "true" : "false", " } }"),
        snapshot(discover_running));
  }
  scheduler.AddEvent(
      R"pb(task_change { task { task_id: "discover" state: TASK_STATE_COMPLETED } })pb",
      snapshot(R"pb(status: RUN_STATUS_RUNNING
                    phases {
                      phase_id: "discover"
                      state: TASK_STATE_COMPLETED
                      started_at { seconds: 1700000001 }
                      finished_at { seconds: 1700000004 }
                    })pb"));
  const std::string report_state = final_status == "COMPLETED" ? "COMPLETED" : "FAILED";
  const std::string finished = absl::StrCat(
      "status: RUN_STATUS_", final_status,
      " finished_at { seconds: 1700000009 } usage { cost_usd: 0.25 } output: \"", output, "\"",
      R"pb(phases {
             phase_id: "discover"
             state: TASK_STATE_COMPLETED
             started_at { seconds: 1700000001 }
             finished_at { seconds: 1700000004 }
           })pb",
      " phases { phase_id: \"report\" state: TASK_STATE_", report_state,
      " started_at { seconds: 1700000004 } finished_at { seconds: 1700000009 } }");
  scheduler.AddEvent(absl::StrCat("run_finished { status: RUN_STATUS_", final_status, " }"),
                     snapshot(finished));
}

// --- Local checks: no scheduler is needed, and none is called ------------------

TEST(RunCommand, MissingFile_Exits2WithHint) {
  testing::CliResult result = Cli({"run", "/nonexistent/flow.yaml"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("taskboard run: cannot read '/nonexistent/flow.yaml'"));
}

TEST(RunCommand, InvalidFlow_Exits1WithEveryErrorBeforeAnyNetworkCall) {
  testing::CliResult result =
      Cli({"run", ExampleFlow("broken.json"), "--scheduler", NowhereAddress()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, AllOf(HasSubstr("broken.json: invalid flow ("),
                                HasSubstr("dependency cycle: "), Not(HasSubstr("scheduler"))));
}

TEST(RunCommand, MissingRequiredArg_Exits2BeforeAnyNetworkCall) {
  testing::CliResult result =
      Cli({"run", ExampleFlow("triage-board.yaml"), "--scheduler", NowhereAddress()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("taskboard run: invalid run args (1 error)"),
                    HasSubstr("  args.issue: required arg 'issue'"), Not(HasSubstr("scheduler"))));
}

TEST(RunCommand, UnknownArg_Exits2) {
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "dri=src", "--scheduler", NowhereAddress()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("args.dri: unknown arg 'dri' (declared: dir)"));
}

TEST(RunCommand, MalformedLabel_Exits2) {
  testing::CliResult result = Cli(
      {"run", ExampleFlow("repo-digest.yaml"), "--label", "team", "--scheduler", NowhereAddress()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--label takes key=value (got 'team')"));
}

TEST(RunCommand, NoFlowGiven_IsAUsageError) {
  testing::CliResult result = Cli({"run"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("flow is required"));
}

// --- Talking to a scheduler ------------------------------------------------------

TEST(RunCommand, NothingListening_Exits2WithUnavailableHint) {
  const std::string address = NowhereAddress();
  testing::CliResult result = Cli(
      {"run", ExampleFlow("repo-digest.yaml"), "--scheduler", address, "--failover-timeout", "0"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(
      result.err,
      AllOf(HasSubstr(absl::StrCat("taskboard run: cannot reach the scheduler at ", address, ": ")),
            HasSubstr("(start one with `taskboard dev`)")));
}

TEST(RunCommand, SchedulerAddress_FromEnvironment) {
  const std::string address = NowhereAddress();
  setenv("TASKBOARD_SCHEDULER", address.c_str(), 1);
  setenv("TASKBOARD_FAILOVER_TIMEOUT", "0", 1);
  testing::CliResult result = Cli({"run", ExampleFlow("repo-digest.yaml")});
  unsetenv("TASKBOARD_SCHEDULER");
  unsetenv("TASKBOARD_FAILOVER_TIMEOUT");
  EXPECT_THAT(result.err, HasSubstr("cannot reach the scheduler at " + address));
}

TEST(RunCommand, SchedulerFlowErrors_PrintedLikeValidate) {
  FakeScheduler scheduler;
  v1::FlowErrors errors;
  v1::FlowError* error = errors.add_errors();
  error->set_path("phases[0].agent");
  error->set_message("unknown agent 'scout'");
  scheduler.FailNextCall(
      FlowErrorsStatus("flow is invalid (1 error):\n  phases[0].agent: unknown agent", errors));
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "taskboard run: flow is invalid (1 error)\n"
            "  phases[0].agent: unknown agent 'scout'\n");
}

TEST(RunCommand, Completed_SendsSourceArgsAndLabels_PrintsOutput_Exits0) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "# Overview\\nall good");
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "dir=src", "--label", "team=core", "--label",
           "env=ci", "--session", "s-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "# Overview\nall good\n");

  const v1::SubmitRunRequest request = scheduler.submitted();
  EXPECT_THAT(request.source().text(), HasSubstr("name: repo-digest"));
  EXPECT_EQ(request.source().format(), v1::DSL_FORMAT_YAML);
  EXPECT_EQ(DumpJson(flow::ProtoStructToJson(request.args())), R"({"dir":"src"})");
  EXPECT_THAT(request.labels(), UnorderedElementsAre(Pair("team", "core"), Pair("env", "ci")));
  EXPECT_EQ(request.session_id(), "s-1");
  EXPECT_THAT(scheduler.watch_after_seqs(), ElementsAre(0));

  // Not a terminal: a header, one line per transition seen (how many depends
  // on how the events were batched), the final frame.
  EXPECT_THAT(result.err, AllOf(HasSubstr("○ taskflow repo-digest  0/2 phases · pending"),
                                HasSubstr("[+4.0s] ✓ discover  completed  3.0s\n"),
                                HasSubstr("[+9.0s] ✓ report  completed  5.0s\n"),
                                HasSubstr("✓ taskflow repo-digest  2/2 phases · completed · "
                                          "$0.250 · 9.0s · run r-1\n")));
}

// The events keep the follower's snapshot current: the whole run is fetched
// when following starts and once it finished (for the output), not after
// each batch of events.
TEST(RunCommand, Following_FetchesTheRunOnlyAtTheStartAndOnceFinished) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done", {"read_file", "read_file cached"});
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.get_run_ids(), ElementsAre("r-1", "r-1"));
  EXPECT_EQ(result.out, "done\n");
}

TEST(RunCommand, ToolCalls_CountedInTheFinalFrame) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done",
                  {"list_files", "read_file", "read_file cached", "read_file cached"});
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("\n✓ taskflow repo-digest  2/2 phases · completed · $0.250 · "
                                    "9.0s · tools 4 · cached 2 · run r-1\n"
                                    "    ✓  discover  agent   scout   3.0s  tools 4 (2 cached)\n"
                                    "    ✓  report    reduce  writer  5.0s\n"));
  EXPECT_EQ(result.out, "done\n");
}

TEST(RunCommand, Json_ObservationEventsAreJsonLinesLikeAnyOther) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done", {"read_file cached"});
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--json", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = absl::StrSplit(result.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 6u) << result.out;
  EXPECT_THAT(lines[2], HasSubstr(R"("observation":{"observation":{"taskId":"discover",)"
                                  R"("toolName":"read_file","cached":true}})"));
  EXPECT_THAT(result.err, IsEmpty());
}

TEST(RunCommand, FailedRun_Exits1WithResumeHint) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "FAILED", "");
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, IsEmpty());
  EXPECT_THAT(result.err, AllOf(HasSubstr("taskboard run: run r-1 failed\n"),
                                HasSubstr("resume it with `taskboard resume r-1`")));
}

TEST(RunCommand, Json_PrintsEveryEventThenTheFinalRun) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--json", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = absl::StrSplit(result.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 5u) << result.out;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<Json> event = ParseJson(lines[i]);
    ASSERT_TRUE(event.ok()) << lines[i];
    EXPECT_EQ((*event)["seq"], std::to_string(i + 1)) << "int64 is a JSON string";
  }
  EXPECT_THAT(lines[2], HasSubstr(R"("taskChange")"));
  EXPECT_THAT(lines[3], HasSubstr(R"("runFinished":{"status":"RUN_STATUS_COMPLETED"})"));
  absl::StatusOr<Json> run = ParseJson(lines[4]);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ((*run)["status"], "RUN_STATUS_COMPLETED");
  EXPECT_EQ((*run)["output"], "done");
  EXPECT_THAT(result.err, IsEmpty()) << "no live view in JSON mode";
}

TEST(RunCommand, NoWatch_PrintsRunIdAndReturns) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  testing::CliResult result = Cli(
      {"run", ExampleFlow("repo-digest.yaml"), "--no-watch", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "r-1\n");
  EXPECT_THAT(scheduler.watch_after_seqs(), IsEmpty());
}

// A saved flow run by name, as pi-taskflow's `/tf:<name> args`.
v1::SavedFlow SavedDigest() {
  v1::SavedFlow flow;
  flow.set_name("digest");
  flow.set_version(4);
  flow.mutable_spec()->set_name("digest");
  v1::ArgSpec* dir = flow.mutable_spec()->add_args();
  dir->set_name("dir");
  dir->set_required(true);
  flow.mutable_spec()->mutable_taskflow()->add_phases()->set_id("a");
  return flow;
}

TEST(RunCommand, SavedFlowName_SubmitsTheSavedRefWithKeyValueArgs) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.SetFlows({SavedDigest()});
  testing::CliResult result =
      Cli({"run", "digest", "dir=src", "--no-watch", "--scheduler", scheduler.address()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const v1::SubmitRunRequest submitted = scheduler.submitted();
  ASSERT_TRUE(submitted.has_saved());
  EXPECT_EQ(submitted.saved().name(), "digest");
  EXPECT_EQ(submitted.saved().version(), 4) << "pinned to the version its args were checked on";
  EXPECT_EQ(flow::ProtoStructToJson(submitted.args()), Json({{"dir", "src"}}));
}

TEST(RunCommand, SavedFlowName_MissingRequiredArg_Exits2WithoutSubmitting) {
  FakeScheduler scheduler;
  scheduler.SetFlows({SavedDigest()});
  testing::CliResult result =
      Cli({"run", "digest", "--no-watch", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("dir"));
  EXPECT_FALSE(scheduler.submitted().has_saved()) << "nothing was submitted";
}

TEST(RunCommand, UnknownSavedFlowName_Exits1ListingTheSavedFlows) {
  FakeScheduler scheduler;
  scheduler.SetFlows({SavedDigest()});
  testing::CliResult result = Cli({"run", "digset", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, AllOf(HasSubstr("taskboard run: no saved flow 'digset'"),
                                HasSubstr("(saved: digest)"), HasSubstr(".yaml, .yml or .json")));
}

TEST(RunCommand, FileExtensionOrExistingPath_IsAFileNotAName) {
  EXPECT_EQ(Cli({"run", "missing.yml", "--scheduler", NowhereAddress()}).exit_code, 2)
      << "an unreadable file, not a saved flow lookup";
  EXPECT_EQ(Cli({"run", "missing.JSON", "--scheduler", NowhereAddress()}).exit_code, 2);
}

TEST(RunCommand, LabelsBeforeTheFile_EachTakeOneValue) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  testing::CliResult result =
      Cli({"run", "--label", "a=b", "--label", "c=d", ExampleFlow("repo-digest.yaml"), "dir=x",
           "--no-watch", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.submitted().labels(), UnorderedElementsAre(Pair("a", "b"), Pair("c", "d")));
}

TEST(RunCommand, StreamBreaks_ReconnectsAfterLastSeenSeq) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.BreakFirstStreamAfter(2);
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.watch_after_seqs(), ElementsAre(0, 2));
  // A fresh snapshot before the new stream, rather than trusting the replay.
  EXPECT_THAT(scheduler.get_run_ids(), ElementsAre("r-1", "r-1", "r-1"))
      << "at the start, on reconnecting, once finished";
  // It had delivered events: resumed at once, without a word.
  EXPECT_THAT(result.err, Not(HasSubstr("lost the watch")));
  EXPECT_EQ(result.out, "done\n");
}

// A replica that lost the lead ends the stream naming the new leader
// (docs/operations.md#clients-and-replicated-schedulers): the follower
// resumes there after the last event seen, with a fresh snapshot from it.
TEST(RunCommand, StreamEndsNotLeader_ResumesOnTheNamedLeaderAfterLastSeenSeq) {
  FakeScheduler old_leader;
  FakeScheduler new_leader;
  ScriptDigestRun(old_leader, "COMPLETED", "done");
  ScriptDigestRun(new_leader, "COMPLETED", "done");
  old_leader.BreakFirstStreamAfter(
      2, grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      absl::StrCat("not the leader; the leader is at ", new_leader.address(),
                                   " (epoch 2)")));
  old_leader.NameLeaderOnBreak(new_leader.address());
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", old_leader.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(old_leader.watch_after_seqs(), ElementsAre(0));
  EXPECT_THAT(new_leader.watch_after_seqs(), ElementsAre(2));
  EXPECT_THAT(new_leader.get_run_ids(), ElementsAre("r-1", "r-1"))
      << "on reconnecting, once finished";
  EXPECT_THAT(result.err, Not(HasSubstr("lost the watch")));
  EXPECT_EQ(result.out, "done\n");
}

// A watcher the scheduler dropped for falling behind resumes the same way.
TEST(RunCommand, StreamDroppedForFallingBehind_ResumesAfterLastSeenSeq) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.BreakFirstStreamAfter(2, grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                                  "this watcher fell 100001 events "
                                                  "behind run r-1"));
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.watch_after_seqs(), ElementsAre(0, 2));
  EXPECT_EQ(result.out, "done\n");
}

// --- watch and resume ------------------------------------------------------------

TEST(WatchCommand, FinishedRun_ReplaysAndExitsWithItsStatus) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "FAILED", "partial");
  testing::CliResult result = Cli({"watch", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "partial\n");
  EXPECT_THAT(result.err, HasSubstr("taskboard watch: run r-1 failed"));
}

// The run's end with its output cut to --max-event-bytes (a large map's
// merged output): the tasks are as the events left them, so the end fetch is
// still without them, and the output printed is the fetched one, whole.
TEST(WatchCommand, RunFinishedCut_EndFetchWithoutTasksPrintsTheWholeOutput) {
  FakeScheduler scheduler;
  scheduler.HonorWithoutTasks();
  const std::string base = R"pb(run_id: "r-1"
                                flow_name: "one"
                                kind: FLOW_KIND_BOARD
                                created_at { seconds: 1700000000 })pb";
  const v1::Run stale = MakeRun(absl::StrCat(base, " status: RUN_STATUS_RUNNING"));
  scheduler.SetRun(stale);
  scheduler.AddEvent(
      R"pb(tasks_created { tasks { task_id: "a" agent: "coder" state: TASK_STATE_READY } })pb",
      stale);
  scheduler.AddEvent(
      R"pb(task_change { task { task_id: "a" agent: "coder" state: TASK_STATE_COMPLETED } })pb",
      stale);
  const std::string whole(3000, 'w');
  const std::string cut =
      std::string(600, 'w') + "…[cut: 600 of 3000 bytes shown; scheduler flag --max-event-bytes]";
  v1::Run finished = MakeRun(absl::StrCat(
      base, R"pb(status: RUN_STATUS_COMPLETED
                 finished_at { seconds: 1700000004 }
                 tasks_total: 1
                 tasks_done: 1
                 tasks { task_id: "a" agent: "coder" state: TASK_STATE_COMPLETED })pb"));
  finished.set_output(whole);
  scheduler.AddEvent(
      absl::StrCat("run_finished { status: RUN_STATUS_COMPLETED output: \"", cut, "\" }"),
      finished);
  testing::CliResult result = Cli({"watch", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.get_run_without_tasks(), ElementsAre(true, true));
  EXPECT_EQ(result.out, whole + "\n");
  EXPECT_THAT(result.err, HasSubstr("✓ board one  1/1 task · completed")) << result.err;
}

// A board as the scheduler announces it: its tasks together in one
// tasks_created, then each change. The follower applies them itself: the
// run is fetched at the start and once finished only, both times without
// its tasks (the replay from seq 0 brings them), and the snapshots GetRun
// would have answered in between (left without tasks here) are never asked
// for.
TEST(WatchCommand, BoardTasksCreated_AppliedWithoutFetchingAndShownByTask) {
  FakeScheduler scheduler;
  scheduler.HonorWithoutTasks();
  const std::string base = R"pb(run_id: "r-1"
                                flow_name: "pair"
                                kind: FLOW_KIND_BOARD
                                created_at { seconds: 1700000000 })pb";
  const v1::Run stale = MakeRun(absl::StrCat(base, " status: RUN_STATUS_RUNNING"));
  scheduler.SetRun(stale);
  scheduler.AddEvent(R"pb(tasks_created {
                            tasks { task_id: "a" agent: "coder" state: TASK_STATE_READY }
                            tasks { task_id: "b" agent: "coder" state: TASK_STATE_READY }
                          })pb",
                     stale);
  scheduler.AddEvent(R"pb(task_change {
                            task {
                              task_id: "a"
                              agent: "coder"
                              state: TASK_STATE_COMPLETED
                              started_at { seconds: 1700000001 }
                              finished_at { seconds: 1700000003 }
                            }
                          })pb",
                     stale);
  scheduler.AddEvent(R"pb(task_change {
                            task {
                              task_id: "b"
                              agent: "coder"
                              state: TASK_STATE_COMPLETED
                              started_at { seconds: 1700000001 }
                              finished_at { seconds: 1700000004 }
                            }
                          })pb",
                     stale);
  scheduler.AddEvent(
      "run_finished { status: RUN_STATUS_COMPLETED output: \"done\" }",
      MakeRun(absl::StrCat(
          base, R"pb(status: RUN_STATUS_COMPLETED
                     output: "done"
                     finished_at { seconds: 1700000004 }
                     tasks_total: 2
                     tasks_done: 2
                     tasks { task_id: "a" agent: "coder" state: TASK_STATE_COMPLETED }
                     tasks { task_id: "b" agent: "coder" state: TASK_STATE_COMPLETED })pb")));
  testing::CliResult result = Cli({"watch", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(scheduler.get_run_ids(), ElementsAre("r-1", "r-1"));
  EXPECT_THAT(scheduler.get_run_without_tasks(), ElementsAre(true, true));
  // The tasks as the events left them (with their times), not as the
  // fixture's final answer lists them: that answer is fetched without them.
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("] ✓ a  completed  2.0s\n"), HasSubstr("] ✓ b  completed  3.0s\n"),
                    HasSubstr("✓ board pair  2/2 tasks · completed")))
      << result.err;
  EXPECT_EQ(result.out, "done\n");
}

// `taskboard watch` of `running` until one event ends it completed as
// `running` with `update` applied; GetRun also answers for `child`.
testing::CliResult WatchNestedRunToTheEnd(const v1::Run& running,
                                          const std::function<void(v1::Run&)>& update,
                                          const v1::Run& child) {
  FakeScheduler scheduler;
  v1::Run done = running;
  done.set_status(v1::RUN_STATUS_COMPLETED);
  done.set_output("done");
  update(done);
  scheduler.SetRun(running);
  scheduler.AddEvent("run_finished { status: RUN_STATUS_COMPLETED output: \"done\" }", done);
  scheduler.AddOtherRun(child);
  return Cli({"watch", running.run_id(), "--scheduler", scheduler.address()});
}

TEST(WatchCommand, NestedRun_FinalFrameShowsTheChildRunUnderItsStep) {
  testing::CliResult result = WatchNestedRunToTheEnd(
      MakeRun(R"pb(
        run_id: "p-1"
        flow_name: "migrate"
        kind: FLOW_KIND_PLAN_AND_EXECUTE
        status: RUN_STATUS_RUNNING
        board_meta: "active"
        child_run_ids: "c-1"
        tasks { task_id: "storage" role: "step" state: TASK_STATE_RUNNING child_run_id: "c-1" }
      )pb"),
      [](v1::Run& done) { done.mutable_tasks(0)->set_state(v1::TASK_STATE_COMPLETED); },
      MakeRun(R"pb(
        run_id: "c-1"
        flow_name: "migrate/storage"
        kind: FLOW_KIND_SUPERVISOR
        status: RUN_STATUS_COMPLETED
        parent_run_id: "p-1"
        tasks { task_id: "edit" role: "worker" agent: "coder" state: TASK_STATE_COMPLETED }
      )pb"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "done\n");
  EXPECT_THAT(result.err, HasSubstr("    ✓  storage  step\n"
                                    "       ↳ ✓ supervisor migrate/storage  1/1 task · completed "
                                    "· run c-1\n"
                                    "               ✓  edit  worker  coder\n"));
}

TEST(WatchCommand, PlanPhase_FinalFrameShowsItsChildRunUnderThePhase) {
  testing::CliResult result = WatchNestedRunToTheEnd(
      MakeRun(R"pb(
                run_id: "t-1"
                flow_name: "report"
                kind: FLOW_KIND_TASKFLOW
                status: RUN_STATUS_RUNNING
                child_run_ids: "c-1"
                phases { phase_id: "write" state: TASK_STATE_RUNNING }
                tasks {
                  task_id: "write"
                  phase_id: "write"
                  state: TASK_STATE_RUNNING
                  child_run_id: "c-1"
                }
              )pb",
              "name: report\nphases: [{id: write, type: plan, agent: writer, task: Write}]\n"),
      [](v1::Run& done) { done.mutable_phases(0)->set_state(v1::TASK_STATE_COMPLETED); },
      MakeRun(R"pb(
        run_id: "c-1"
        flow_name: "report/write"
        kind: FLOW_KIND_PLAN_AND_EXECUTE
        status: RUN_STATUS_COMPLETED
        parent_run_id: "t-1"
        tasks { task_id: "draft" role: "step" agent: "writer" state: TASK_STATE_COMPLETED }
      )pb"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "done\n");
  EXPECT_THAT(result.err, HasSubstr("    ✓  write  plan  writer\n"
                                    "       ↳ ✓ plan_and_execute report/write  1/1 task · "
                                    "completed · run c-1\n"
                                    "               ✓  draft  step  writer\n"));
}

TEST(WatchCommand, UnknownRun_Exits1WithSchedulersMessage) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  testing::CliResult result = Cli({"watch", "nope", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "taskboard watch: NOT_FOUND: run 'nope' not found\n");
}

TEST(WatchCommand, RunIdIsRequired) { EXPECT_EQ(Cli({"watch"}).exit_code, 2); }

TEST(ResumeCommand, PrintsReusedPhasesThenFollowsOnlyNewEvents) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  v1::Run before = MakeRun(R"pb(run_id: "r-1" status: RUN_STATUS_FAILED last_seq: 3)pb");
  scheduler.SetRun(before);
  scheduler.SetResumeReused({"discover"});
  testing::CliResult result = Cli({"resume", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("resumed run r-1; reused 1 phase: discover\n"));
  EXPECT_THAT(scheduler.watch_after_seqs(), ElementsAre(3));
  // Resuming needs no tasks; the replay from seq 3 does not bring them all,
  // so the follow starts from the whole run, and ends without them.
  EXPECT_THAT(scheduler.get_run_without_tasks(), ElementsAre(true, false, true));
  EXPECT_EQ(result.out, "done\n");
}

TEST(ResumeCommand, PatternRun_SaysItsCompletedTasksAreKept) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.SetRun(MakeRun(R"pb(run_id: "r-1"
                                status: RUN_STATUS_FAILED
                                kind: FLOW_KIND_SUPERVISOR
                                last_seq: 3)pb"));
  testing::CliResult result = Cli({"resume", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr("resumed run r-1; its completed tasks are kept, the rest runs again\n"));
}

TEST(ResumeCommand, CompletedRun_NothingToResumeExits0) {
  FakeScheduler scheduler;
  scheduler.SetRun(MakeRun(R"pb(run_id: "r-1" status: RUN_STATUS_COMPLETED last_seq: 3)pb"));
  testing::CliResult result = Cli({"resume", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("run r-1 already completed; nothing to resume"));
}

// A run paused on its budget of $0.50, having billed $0.48.
v1::Run PausedOnBudget() {
  return MakeRun(R"pb(
    run_id: "r-1"
    flow_name: "audit"
    kind: FLOW_KIND_BOARD
    status: RUN_STATUS_PAUSED
    last_seq: 3
    error: "paused: run r-1's budget of $0.5000 is reached: $0.4800 billed, $0.0000 in calls "
           "still running, and this call may cost up to $0.0500"
    billed { input_tokens: 20000 output_tokens: 4000 cost_usd: 0.48 }
    budget { usd: 0.5 tokens: 100000 })pb");
}

TEST(ResumeCommand, BudgetFlags_SentWithTheResumeAndTheNewBudgetPrinted) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.SetRun(PausedOnBudget());
  testing::CliResult result = Cli({"resume", "r-1", "--budget-usd", "2", "--budget-tokens",
                                   "300000", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const v1::ResumeRunRequest sent = scheduler.resume_request();
  EXPECT_EQ(sent.run_id(), "r-1");
  ASSERT_TRUE(sent.has_budget_usd());
  EXPECT_EQ(sent.budget_usd(), 2);
  ASSERT_TRUE(sent.has_budget_tokens());
  EXPECT_EQ(sent.budget_tokens(), 300000);
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("resumed run r-1; "),
                    HasSubstr("\nbudget now $2.00 / 300k tokens; billed so far ↑20k ↓4.0k "
                              "$0.480\n")));
}

// The other limit stays as it was, and only the given one is sent.
TEST(ResumeCommand, OneBudgetFlag_SendsOnlyItAndKeepsTheOtherLimit) {
  FakeScheduler scheduler;
  scheduler.SetRun(PausedOnBudget());
  testing::CliResult result = Cli(
      {"resume", "r-1", "--budget-usd", "0.75", "--no-watch", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.resume_request().budget_usd(), 0.75);
  EXPECT_FALSE(scheduler.resume_request().has_budget_tokens());
  EXPECT_THAT(result.err, HasSubstr("\nbudget now $0.750 / 100k tokens;"));
}

TEST(ResumeCommand, NoBudgetFlags_SendsNoBudgetAndPrintsNone) {
  FakeScheduler scheduler;
  scheduler.SetRun(PausedOnBudget());
  testing::CliResult result =
      Cli({"resume", "r-1", "--no-watch", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(scheduler.resume_request().has_budget_usd());
  EXPECT_FALSE(scheduler.resume_request().has_budget_tokens());
  EXPECT_THAT(result.err, Not(HasSubstr("budget now")));
}

TEST(ResumeCommand, BudgetNotAbove0_Exits2BeforeAnyCall) {
  FakeScheduler scheduler;
  scheduler.SetRun(PausedOnBudget());
  for (const char* usd : {"0", "-1", "nan", "inf"}) {
    testing::CliResult result =
        Cli({"resume", "r-1", "--budget-usd", usd, "--scheduler", scheduler.address()});
    EXPECT_EQ(result.exit_code, 2) << usd;
    EXPECT_THAT(result.err, AllOf(HasSubstr("taskboard resume: --budget-usd"),
                                  HasSubstr("give the run's new total in dollars, above 0")))
        << usd;
  }
  testing::CliResult result =
      Cli({"resume", "r-1", "--budget-tokens", "0", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("taskboard resume: --budget-tokens 0 is not a budget"));
  // Not numbers at all: CLI11 refuses them.
  EXPECT_EQ(Cli({"resume", "r-1", "--budget-usd", "lots"}).exit_code, 2);
  EXPECT_EQ(Cli({"resume", "r-1", "--budget-tokens", "1.5"}).exit_code, 2);
  EXPECT_EQ(scheduler.calls(), 0);
}

TEST(WatchCommand, PausedOnItsBudget_BilledLineErrorAndHowToContinue) {
  FakeScheduler scheduler;
  scheduler.SetRun(PausedOnBudget());
  testing::CliResult result = Cli({"watch", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("\nbilled ↑20k ↓4.0k $0.480 of budget $0.500 / 100k tokens\n"
                              "taskboard watch: run r-1 paused: run r-1's budget of $0.5000 is "
                              "reached: "),
                    HasSubstr("\n  raise its budget and continue: `taskboard resume r-1 "
                              "--budget-usd X`"),
                    Not(HasSubstr("paused: paused:")), Not(HasSubstr("resume it with"))));
}

TEST(ResumeCommand, NotResumable_Exits1) {
  FakeScheduler scheduler;
  ScriptDigestRun(scheduler, "COMPLETED", "done");
  scheduler.FailNextCall(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "run 'r-1' is completed"));
  testing::CliResult result = Cli({"resume", "r-1", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "taskboard resume: FAILED_PRECONDITION: run 'r-1' is completed\n");
}

}  // namespace
}  // namespace taskboard::cli
