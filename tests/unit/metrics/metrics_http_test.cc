#include "common/metrics/metrics_http.h"

#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/metrics/builder.h"
#include "common/metrics/registry.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::metrics {
namespace {

std::unique_ptr<MetricsHttpServer> StartOrDie(const Registry* registry,
                                              MetricsHttpOptions options = {}) {
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      MetricsHttpServer::Start(registry, std::move(options));
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(MetricsHttp, GetMetrics_ServesTheRegistryAsTextFormat) {
  Registry registry;
  Counter& runs = BuildCounter()
                      .Name("taskboard_runs_total")
                      .Help("Runs.")
                      .Register(registry)
                      .Add({{"kind", "flow"}});
  runs.Increment(2);
  std::unique_ptr<MetricsHttpServer> server = StartOrDie(&registry);
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->port(), 0);

  httplib::Client client("127.0.0.1", server->port());
  httplib::Result response = client.Get("/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(response->body,
            "# HELP taskboard_runs_total Runs.\n"
            "# TYPE taskboard_runs_total counter\n"
            "taskboard_runs_total{kind=\"flow\"} 2\n");

  // Every scrape is a fresh snapshot.
  runs.Increment();
  response = client.Get("/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_NE(response->body.find("taskboard_runs_total{kind=\"flow\"} 3\n"), std::string::npos)
      << response->body;
}

TEST(MetricsHttp, Probes_FollowTheirCallbacks) {
  Registry registry;
  std::atomic<bool> ready{false};
  MetricsHttpOptions options;
  options.health = [] { return absl::OkStatus(); };
  options.readiness = [&ready]() -> absl::Status {
    if (ready.load()) return absl::OkStatus();
    return absl::UnavailableError("store not open yet");
  };
  std::unique_ptr<MetricsHttpServer> server = StartOrDie(&registry, std::move(options));
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());

  httplib::Result health = client.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok\n");

  httplib::Result not_ready = client.Get("/readyz");
  ASSERT_TRUE(not_ready) << httplib::to_string(not_ready.error());
  EXPECT_EQ(not_ready->status, 503);
  EXPECT_EQ(not_ready->body, "store not open yet\n");

  ready.store(true);
  httplib::Result now_ready = client.Get("/readyz");
  ASSERT_TRUE(now_ready) << httplib::to_string(now_ready.error());
  EXPECT_EQ(now_ready->status, 200);
  EXPECT_EQ(now_ready->body, "ok\n");
}

TEST(MetricsHttp, Probes_WithoutCallbacks_AnswerOk) {
  Registry registry;
  std::unique_ptr<MetricsHttpServer> server = StartOrDie(&registry);
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  for (const char* path : {"/healthz", "/readyz"}) {
    httplib::Result response = client.Get(path);
    ASSERT_TRUE(response) << path << ": " << httplib::to_string(response.error());
    EXPECT_EQ(response->status, 200) << path;
  }
}

TEST(MetricsHttp, Start_PortInUse_IsUnavailable) {
  Registry registry;
  std::unique_ptr<MetricsHttpServer> first = StartOrDie(&registry);
  ASSERT_NE(first, nullptr);
  MetricsHttpOptions options;
  options.port = first->port();
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> second =
      MetricsHttpServer::Start(&registry, std::move(options));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
}

TEST(MetricsHttp, Shutdown_Twice_IsHarmless) {
  Registry registry;
  std::unique_ptr<MetricsHttpServer> server = StartOrDie(&registry);
  ASSERT_NE(server, nullptr);
  server->Shutdown();
  server->Shutdown();
  httplib::Client client("127.0.0.1", server->port());
  EXPECT_FALSE(client.Get("/metrics"));
}

TEST(MetricsFlags, PortFileWithoutListen_IsAnError) {
  MetricsHttpOptions options;
  absl::Status status = CheckMetricsFlags("", "/tmp/metrics.port", options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "--metrics-port-file needs --metrics-listen");
  EXPECT_TRUE(CheckMetricsFlags("", "", options).ok());
}

TEST(MetricsFlags, Listen_FillsHostAndPortOrNamesTheFlag) {
  MetricsHttpOptions options;
  ASSERT_TRUE(CheckMetricsFlags("0.0.0.0:9464", "", options).ok());
  EXPECT_EQ(options.host, "0.0.0.0");
  EXPECT_EQ(options.port, 9464);
  EXPECT_EQ(CheckMetricsFlags("9464", "", options).code(), absl::StatusCode::kInvalidArgument);
}

TEST(MetricsFlags, ServeMetrics_WritesTheBoundPortToThePortFile) {
  Registry registry;
  testing::TempDir dir;
  const std::string port_file = (dir.path() / "metrics.port").string();
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      ServeMetrics(&registry, {}, port_file);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(ReadFileOrEmpty(port_file), absl::StrCat((*server)->port(), "\n"));
}

TEST(MetricsFlags, ServeMetrics_UnwritablePortFile_NamesIt) {
  Registry registry;
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      ServeMetrics(&registry, {}, "/nonexistent-dir/metrics.port");
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(server.status().message(),
            "cannot write --metrics-port-file '/nonexistent-dir/metrics.port'");
}

}  // namespace
}  // namespace taskboard::metrics
