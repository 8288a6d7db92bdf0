// The worker's operations endpoint across real processes: a worker started
// with --metrics-listen 127.0.0.1:0 --metrics-port-file runs a command agent
// that reads a file through `taskboard tool read_file`; its /metrics then
// shows the task and the tool call, passes the real `promtool check metrics`,
// and /readyz follows the connection to the scheduler.

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/cluster.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/promtool.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Optional;

constexpr absl::Duration kWait = absl::Seconds(20);
// How often the waits below look again.
constexpr absl::Duration kPoll = absl::Milliseconds(20);

// The value of the sample written exactly as `series` in `exposition`.
std::optional<double> Sample(const std::string& exposition, const std::string& series) {
  return testing::SampleValue(exposition, series);
}

class WorkerMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(cluster_.Start(), IsOk());
    const absl::Time deadline = absl::Now() + kWait;
    int port = 0;
    while (absl::Now() < deadline) {
      std::ifstream in(PortFile());
      if (in >> port && port > 0) break;
      absl::SleepFor(kPoll);
    }
    ASSERT_GT(port, 0) << "the worker wrote no metrics port\n" << cluster_.Logs();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", port);
  }

  std::filesystem::path PortFile() const { return files_.path() / "worker-0.metrics.port"; }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    options.worker_flags = {"--metrics-listen", "127.0.0.1:0", "--metrics-port-file",
                            PortFile().string()};
    return options;
  }

  // GET `path` until it answers `status` (or the deadline); the last body.
  std::string WaitForStatus(const std::string& path, int status) {
    const absl::Time deadline = absl::Now() + kWait;
    std::string body;
    while (absl::Now() < deadline) {
      httplib::Result response = http_->Get(path);
      if (response) {
        body = response->body;
        if (response->status == status) return body;
      }
      absl::SleepFor(kPoll);
    }
    ADD_FAILURE() << path << " never answered " << status << " (last body: " << body << ")\n"
                  << cluster_.Logs();
    return body;
  }

  std::string Scrape() {
    httplib::Result response = http_->Get("/metrics");
    EXPECT_TRUE(response) << httplib::to_string(response.error());
    if (!response) return "";
    EXPECT_EQ(response->status, 200);
    return response->body;
  }

  // Before cluster_, whose options name a file in it.
  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(WorkerMetricsTest, ToolCallingTask_CountedInMetricsThatPassPromtool) {
  EXPECT_EQ(WaitForStatus("/readyz", 200), "ok\n");
  EXPECT_EQ(WaitForStatus("/healthz", 200), "ok\n");

  std::ofstream(cluster_.dir() / "notes.txt") << "remember the milk\n";
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: read-through-tool
phases:
  - id: read
    agent: echo
    task: 'tool read_file {"path": "notes.txt"}'
)");
  ASSERT_THAT(run_id, IsOk()) << cluster_.Logs();
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run, IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();

  // The worker counts a task and its tool calls before it reports them.
  const std::string metrics = Scrape();
  EXPECT_THAT(Sample(metrics, R"(taskboard_worker_tasks_total{agent="echo",outcome="succeeded"})"),
              Optional(1))
      << metrics;
  EXPECT_THAT(Sample(metrics, R"(taskboard_worker_task_duration_seconds_count{agent="echo"})"),
              Optional(1));
  // The first read of the file is a cache miss: executed on the worker.
  EXPECT_THAT(
      Sample(metrics,
             R"(taskboard_worker_tool_calls_total{cached="false",outcome="ok",tool="read_file"})"),
      Optional(1))
      << metrics;
  EXPECT_THAT(Sample(metrics, R"(taskboard_worker_tool_duration_seconds_count{tool="read_file"})"),
              Optional(1));
  EXPECT_THAT(Sample(metrics, "taskboard_worker_connected"), Optional(1));
  EXPECT_THAT(Sample(metrics, R"(taskboard_worker_slots{state="free"})"), Optional(4));

  std::optional<testing::Promtool> promtool =
      testing::CheckMetrics(metrics, (files_.path() / "worker.metrics").string());
  if (!promtool.has_value()) {
    GTEST_SKIP() << "promtool is not installed (Debian package `prometheus`, "
                    "scripts/install-deps.sh --test); the exposition was not linted";
  }
  EXPECT_EQ(promtool->exit_code, 0) << promtool->output << "\n" << metrics;
  EXPECT_EQ(promtool->output, "") << metrics;
}

TEST_F(WorkerMetricsTest, SchedulerGone_ReadyzUnavailableAndReconnectsCounted) {
  EXPECT_EQ(WaitForStatus("/readyz", 200), "ok\n");
  cluster_.KillScheduler();
  EXPECT_THAT(WaitForStatus("/readyz", 503), HasSubstr("not connected to the scheduler"));
  // The process is still up.
  EXPECT_EQ(WaitForStatus("/healthz", 200), "ok\n");
  const std::string metrics = Scrape();
  EXPECT_THAT(Sample(metrics, "taskboard_worker_connected"), Optional(0)) << metrics;
  std::optional<double> reconnects = Sample(metrics, "taskboard_worker_reconnects_total");
  ASSERT_TRUE(reconnects.has_value()) << metrics;
  EXPECT_GE(*reconnects, 1);
}

}  // namespace
}  // namespace taskboard
