// Run deadlines with real processes (docs/semantics.md#run-deadlines): a
// run whose deadline passes while its command agent sleeps ends
// `timed_out`, the agent's process is killed, and `taskboard show` names
// the deadline that ended it. The deadline comes from the flow, from
// `taskboard run --run-timeout`, or from the schedule that fired the run.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/marked_processes.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::Exited;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::RunToExit;

// The integration agents plus `sleeper`, which marks its `sleep` with
// DEADLINE_MARKER=sleeper-RUN_ID (so the test finds it in /proc) and sleeps
// far longer than any deadline here.
std::string AgentsDir() {
  static testing::TempDir dir;
  static const bool made = [] {
    const std::filesystem::path shared = testing::SourcePath("tests/integration/agents");
    std::filesystem::copy_file(shared / "script.sh", dir.path() / "script.sh");
    std::filesystem::copy_file(shared / "echo.yaml", dir.path() / "echo.yaml");
    std::ofstream(dir.path() / "sleeper.yaml") << R"(name: sleeper
shell: true
command: |
  export DEADLINE_MARKER="sleeper-$TASKBOARD_RUN_ID"
  sleep 1000
)";
    return true;
  }();
  (void)made;
  return dir.path().string();
}

constexpr char kLongFlow[] = R"(name: long
runTimeoutSeconds: 2
phases:
  - {id: wait, agent: sleeper, task: wait}
)";

class RunDeadlineTest : public testing::ClusterTest {
 protected:
  RunDeadlineTest() : ClusterTest({.workers = 1, .agents_dir = AgentsDir()}) {}

  Exited Cli(std::vector<std::string> args) {
    args.push_back("--scheduler");
    args.push_back(cluster_.address());
    return RunToExit("taskboard", args);
  }

  static std::string Marker(const std::string& run_id) {
    return absl::StrCat("DEADLINE_MARKER=sleeper-", run_id);
  }

  // The run ended timed_out by the deadline `which` ("2s (flow)"), its
  // sleeping agent is gone, and `taskboard show` says which deadline it was.
  void ExpectTimedOut(const std::string& run_id, const std::string& which) {
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id, 30'000);
    ASSERT_THAT(run.status(), IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_TIMED_OUT) << run->error() << cluster_.Logs();
    const std::string error = absl::StrCat("timed out: run deadline ", which, " passed");
    EXPECT_EQ(run->error(), error);
    ASSERT_EQ(run->tasks_size(), 1);
    EXPECT_EQ(run->tasks(0).state(), v1::TASK_STATE_CANCELLED);

    const std::vector<pid_t> left =
        testing::WaitUntilNoProcessWithEnvironment(Marker(run_id), absl::Seconds(15));
    EXPECT_TRUE(left.empty()) << "the agent outlived its run's deadline:"
                              << testing::DescribeProcesses(left);

    Exited shown = Cli({"show", run_id});
    EXPECT_EQ(shown.code, 0) << shown.output;
    EXPECT_THAT(shown.output, HasSubstr("timed_out"));
    EXPECT_THAT(shown.output,
                HasSubstr(absl::StrCat("deadline: ", which, " passed: it ended the run")));
    EXPECT_THAT(shown.output, HasSubstr(absl::StrCat("error: ", error)));
  }
};

TEST_F(RunDeadlineTest, FlowDeadline_EndsALongRunAndKillsItsAgent) {
  const absl::Time submitted = absl::Now();
  absl::StatusOr<std::string> run_id = cluster_.Submit(kLongFlow);
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
  // The agent really runs before the deadline passes.
  ASSERT_TRUE(testing::WaitForProcessesWithEnvironment(Marker(*run_id), 1, absl::Seconds(10)))
      << cluster_.Logs();
  ExpectTimedOut(*run_id, "2s (flow)");
  // Not before its deadline, and not long after.
  absl::StatusOr<v1::Run> run = cluster_.GetRun(*run_id, true);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_GE(absl::FromUnixSeconds(run->finished_at().seconds()) +
                absl::Nanoseconds(run->finished_at().nanos()),
            submitted + absl::Seconds(2) - absl::Milliseconds(50));
  EXPECT_LT(absl::Now() - submitted, absl::Seconds(20));
  EXPECT_EQ(run->deadline().source(), v1::RUN_DEADLINE_SOURCE_FLOW);
}

TEST_F(RunDeadlineTest, CliRunTimeout_EndsARunWhoseFlowHasNone) {
  const std::string path = (cluster_.dir() / "open-ended.yaml").string();
  std::ofstream(path) << "name: open-ended\nphases:\n  - {id: wait, agent: sleeper, task: wait}\n";
  // `taskboard run` follows the run to its end and exits 1 for a run that
  // did not complete.
  Exited ran = Cli({"run", path, "--run-timeout", "2"});
  EXPECT_EQ(ran.code, 1) << ran.output << cluster_.Logs();
  EXPECT_THAT(ran.output, HasSubstr("timed_out: run deadline 2s (submit) passed"));
  const size_t at = ran.output.find("run run-");
  ASSERT_NE(at, std::string::npos) << ran.output;
  std::string run_id = ran.output.substr(at + 4);
  run_id = run_id.substr(0, run_id.find_first_of(" \n"));
  ExpectTimedOut(run_id, "2s (submit)");
}

TEST_F(RunDeadlineTest, ScheduleDeadline_EndsTheRunItFired) {
  v1::SaveFlowRequest save;
  save.mutable_source()->set_text(
      "name: nightly-wait\nphases:\n  - {id: wait, agent: sleeper, task: wait}\n");
  v1::SaveFlowResponse saved;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().SaveFlow(&context, save, &saved).ok());
  }
  v1::CreateScheduleRequest create;
  create.set_source(R"(name: nightly
flow: nightly-wait
runTimeoutSeconds: 2
spec: {cron: "0 3 * * *"}
)");
  v1::CreateScheduleResponse created;
  {
    grpc::ClientContext context;
    grpc::Status status = cluster_.client().CreateSchedule(&context, create, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  EXPECT_EQ(created.schedule().run_timeout_seconds(), 2);
  v1::TriggerScheduleRequest trigger;
  trigger.set_name("nightly");
  v1::TriggerScheduleResponse triggered;
  {
    grpc::ClientContext context;
    grpc::Status status = cluster_.client().TriggerSchedule(&context, trigger, &triggered);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_FALSE(triggered.action().run_id().empty()) << triggered.DebugString();
  ExpectTimedOut(triggered.action().run_id(), "2s (schedule)");
}

}  // namespace
}  // namespace taskboard
