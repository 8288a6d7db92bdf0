// The scheduler's operations endpoint across real processes: a scheduler
// started with --metrics-listen 127.0.0.1:0 --metrics-port-file runs a small
// flow on one worker; its /metrics then shows the finished run, the completed
// task and the gRPC calls, passes the real `promtool check metrics`, and
// /readyz and /healthz answer 200.

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
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

using ::testing::Gt;
using testing::IsOk;
using ::testing::Optional;

class SchedulerMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(cluster_.Start(), IsOk());
    // The scheduler writes its metrics port before its gRPC port, which
    // Start waited for.
    int port = 0;
    std::ifstream(PortFile()) >> port;
    ASSERT_GT(port, 0) << "the scheduler wrote no metrics port\n" << cluster_.Logs();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", port);
  }

  std::filesystem::path PortFile() const { return files_.path() / "scheduler.metrics.port"; }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    options.scheduler_flags = {"--metrics-listen", "127.0.0.1:0", "--metrics-port-file",
                               PortFile().string()};
    return options;
  }

  // The body of GET `path`, expecting `status`.
  std::string Get(const std::string& path, int status) {
    httplib::Result response = http_->Get(path);
    EXPECT_TRUE(response) << path << ": " << httplib::to_string(response.error());
    if (!response) return "";
    EXPECT_EQ(response->status, status) << path << ": " << response->body;
    return response->body;
  }

  // Before cluster_, whose options name a file in it.
  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(SchedulerMetricsTest, FinishedRun_CountedInMetricsThatPassPromtool) {
  EXPECT_EQ(Get("/healthz", 200), "ok\n");
  EXPECT_EQ(Get("/readyz", 200), "ok\n");

  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: say-hello
phases:
  - id: hello
    agent: echo
    task: hello
)");
  ASSERT_THAT(run_id, IsOk()) << cluster_.Logs();
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run, IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();

  // GetRun answered COMPLETED only after the batch that finished the run
  // committed, and the engine counts before it commits.
  const std::string metrics = Get("/metrics", 200);
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_scheduler_runs_submitted_total{kind="taskflow"})"),
      Optional(1))
      << metrics;
  EXPECT_THAT(testing::SampleValue(
                  metrics,
                  R"(taskboard_scheduler_runs_finished_total{kind="taskflow",status="completed"})"),
              Optional(1))
      << metrics;
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_scheduler_tasks_completed_total{agent="echo"})"),
      Optional(1));
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_scheduler_tasks_dispatched_total{agent="echo"})"),
      Optional(1));
  EXPECT_THAT(
      testing::SampleValue(
          metrics,
          R"(taskboard_scheduler_grpc_requests_total{code="OK",method="/taskboard.v1.Scheduler/SubmitRun"})"),
      Optional(1))
      << metrics;
  EXPECT_THAT(testing::SampleValue(metrics, "taskboard_scheduler_connected_workers"), Optional(1));
  // A single scheduler (no --ha-etcd-endpoints) runs no HA code.
  EXPECT_FALSE(absl::StrContains(metrics, "taskboard_scheduler_ha_")) << metrics;
  EXPECT_THAT(testing::SampleValue(metrics, "taskboard_scheduler_store_written_bytes_total"),
              Optional(Gt(0)));

  std::optional<testing::Promtool> promtool =
      testing::CheckMetrics(metrics, (files_.path() / "scheduler.metrics").string());
  if (!promtool.has_value()) {
    GTEST_SKIP() << "promtool is not installed (Debian package `prometheus`, "
                    "scripts/install-deps.sh --test); the exposition was not linted";
  }
  EXPECT_EQ(promtool->exit_code, 0) << promtool->output << "\n" << metrics;
  EXPECT_EQ(promtool->output, "") << metrics;
}

}  // namespace
}  // namespace taskboard
