// Schedules with real processes and the CLI (docs/schedules.md): a schedule
// created from YAML with `taskboard schedules create`, described with its
// next times, triggered into a run that completes; then the scheduler is
// killed with SIGKILL and restarted, and the schedule is still there and
// fires every 2 s with no fire time started twice or lost.

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::Exited;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::RunToExit;

constexpr char kFlow[] = "name: tick\nphases:\n  - {id: a, agent: echo, task: 'echo tick'}\n";
constexpr char kSchedule[] = R"(name: every-two
flow: tick
spec:
  interval: 2s
overlap: allow_all
note: created by the integration test
)";

class SchedulesCliTest : public testing::ClusterTest {
 protected:
  Exited Cli(std::vector<std::string> args) {
    args.push_back("--scheduler");
    args.push_back(cluster_.address());
    return RunToExit("taskboard", args);
  }

  absl::StatusOr<v1::Schedule> Describe() {
    v1::DescribeScheduleRequest request;
    request.set_name("every-two");
    v1::DescribeScheduleResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Status status = cluster_.client().DescribeSchedule(&context, request, &response);
    if (!status.ok()) return absl::UnavailableError(status.error_message());
    return response.schedule();
  }

  // Polls DescribeSchedule until `fires` runs were started (a restarting
  // scheduler answers nothing for a while).
  absl::StatusOr<v1::Schedule> WaitForFires(int64_t fires) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    absl::StatusOr<v1::Schedule> last = absl::DeadlineExceededError("not asked yet");
    while (std::chrono::steady_clock::now() < deadline) {
      last = Describe();
      if (last.ok() && last->fires() >= fires) return last;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return absl::DeadlineExceededError(
        absl::StrCat("fewer than ", fires, " fires within 30 s; last: ",
                     last.ok() ? last->DebugString() : last.status().ToString(), cluster_.Logs()));
  }
};

TEST_F(SchedulesCliTest, CreateDescribeTrigger_ThenKillRestart_NoFireDoubledOrLost) {
  v1::SaveFlowRequest save;
  save.mutable_source()->set_text(kFlow);
  v1::SaveFlowResponse saved;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().SaveFlow(&context, save, &saved).ok());
  }
  const std::string path = (cluster_.dir() / "every-two.yaml").string();
  std::ofstream(path) << kSchedule;

  Exited created = Cli({"schedules", "create", "-f", path});
  ASSERT_EQ(created.code, 0) << created.output;
  EXPECT_THAT(created.output, HasSubstr("created schedule every-two"));

  Exited described = Cli({"schedules", "describe", "every-two"});
  ASSERT_EQ(described.code, 0) << described.output;
  EXPECT_THAT(described.output, HasSubstr("next fire times:"));
  EXPECT_THAT(described.output, HasSubstr("created by the integration test"));
  // Ten next times, each on its own line as `  2026-...Z`.
  int times = 0;
  for (absl::string_view line : absl::StrSplit(described.output, '\n')) {
    if (absl::StartsWith(line, "  20") && absl::EndsWith(line, "Z")) ++times;
  }
  EXPECT_GE(times, 10) << described.output;

  Exited triggered = Cli({"schedules", "trigger", "every-two"});
  ASSERT_EQ(triggered.code, 0) << triggered.output;
  ASSERT_THAT(triggered.output, HasSubstr("started run "));
  std::string run_id = triggered.output.substr(triggered.output.find("run-"));
  run_id = run_id.substr(0, run_id.find('\n'));
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_EQ(run->labels().at("schedule"), "every-two");

  // The trigger counts as a fire; two of the spec's follow.
  ASSERT_THAT(WaitForFires(3).status(), IsOk());
  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  absl::StatusOr<v1::Schedule> after = WaitForFires(6);
  ASSERT_THAT(after.status(), IsOk());
  EXPECT_EQ(after->missed(), 0);

  Exited listed = Cli({"schedules", "list"});
  ASSERT_EQ(listed.code, 0) << listed.output;
  EXPECT_THAT(listed.output, HasSubstr("every-two"));

  // The spec's fires, oldest first: 2 s apart, none twice, none missing.
  std::vector<int64_t> fire_seconds;
  std::set<std::string> run_ids;
  for (auto it = after->recent_actions().rbegin(); it != after->recent_actions().rend(); ++it) {
    if (!it->manual().empty()) continue;
    EXPECT_EQ(it->action(), "start") << it->DebugString();
    fire_seconds.push_back(it->fire_time().seconds());
    EXPECT_TRUE(run_ids.insert(it->run_id()).second) << "run started twice: " << it->run_id();
  }
  ASSERT_GE(fire_seconds.size(), 4u);
  for (size_t i = 1; i < fire_seconds.size(); ++i) {
    EXPECT_EQ(fire_seconds[i] - fire_seconds[i - 1], 2) << "between fire " << i - 1 << " and " << i;
  }
}

}  // namespace
}  // namespace taskboard
