// Both services' /metrics as a real Prometheus server sees them: a scheduler
// and a worker with metrics endpoints on port 0 pass `promtool check
// metrics`, then /usr/bin/prometheus (Debian package `prometheus`) scrapes
// them every second while a board keeps the ready queue non-empty, and its
// HTTP API answers the autoscaling signal
// (taskboard_scheduler_ready_queue_depth{agent}, docs/metrics.md) and `up`
// for both targets. What an operator's Prometheus and autoscaler rely on.

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/cluster.h"
#include "tests/testing/promtool.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::IsOk;

constexpr char kPrometheus[] = "/usr/bin/prometheus";
constexpr absl::Duration kWait = absl::Seconds(30);
// How often the waits below look again.
constexpr absl::Duration kPoll = absl::Milliseconds(100);

// The port a service wrote to `path` (through a rename, so whole or absent).
absl::StatusOr<int> ReadPortFile(const std::filesystem::path& path) {
  const absl::Time deadline = absl::Now() + kWait;
  while (absl::Now() < deadline) {
    int port = 0;
    if (std::ifstream(path) >> port && port > 0) return port;
    absl::SleepFor(kPoll);
  }
  return absl::DeadlineExceededError(absl::StrCat("no port written to ", path.string()));
}

// The port Prometheus bound for --web.listen-address 127.0.0.1:0, from its
// log line `msg="Listening on" address=127.0.0.1:PORT`; 0 until it is there.
int ListeningPort(const std::string& log) {
  const std::string marker = "msg=\"Listening on\" address=";
  const size_t at = log.find(marker);
  if (at == std::string::npos) return 0;
  // The whole line, not one still being written.
  const size_t end = log.find_first_of(" \n", at + marker.size());
  if (end == std::string::npos) return 0;
  const std::string address = log.substr(at + marker.size(), end - at - marker.size());
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port)) return 0;
  return port;
}

// One sample of an instant-query vector: its labels and value.
struct Sample {
  Json labels;
  double value = 0;
};

class PrometheusServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kPrometheus)) {
      GTEST_SKIP() << kPrometheus
                   << " is not installed (Debian package `prometheus`, "
                      "scripts/install-deps.sh --test); no real Prometheus server to scrape with";
    }
    ASSERT_THAT(cluster_.Start(), IsOk());
  }

  void TearDown() override {
    if (prometheus_ == nullptr) return;
    // A clean shutdown first, so its TSDB is closed before the directory goes.
    prometheus_->Signal(SIGTERM);
    EXPECT_EQ(prometheus_->WaitFor(15'000), 0) << PrometheusLog();
    prometheus_.reset();  // kills the group if it is still running
  }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    // One slot: a board of slow tasks keeps the rest of it queued.
    options.slots = 1;
    options.scheduler_flags = {"--metrics-listen", "127.0.0.1:0", "--metrics-port-file",
                               (files_.path() / "scheduler.metrics.port").string()};
    options.worker_flags = {"--metrics-listen", "127.0.0.1:0", "--metrics-port-file",
                            (files_.path() / "worker.metrics.port").string()};
    return options;
  }

  // GET /metrics on 127.0.0.1:`port`, linted by promtool.
  void ExpectPromtoolClean(int port, const std::string& name) {
    httplib::Client http("127.0.0.1", port);
    httplib::Result response = http.Get("/metrics");
    ASSERT_TRUE(response) << name << ": " << httplib::to_string(response.error());
    ASSERT_EQ(response->status, 200) << name << ": " << response->body;
    std::optional<testing::Promtool> promtool =
        testing::CheckMetrics(response->body, (files_.path() / (name + ".metrics")).string());
    ASSERT_TRUE(promtool.has_value()) << "promtool is missing although " << kPrometheus
                                      << " is installed (both come with Debian's `prometheus`)";
    EXPECT_EQ(promtool->exit_code, 0) << name << ": " << promtool->output << "\n" << response->body;
    EXPECT_EQ(promtool->output, "") << name << ":\n" << response->body;
  }

  // Starts Prometheus scraping both services every second; its API port.
  absl::StatusOr<int> StartPrometheus(int scheduler_port, int worker_port) {
    const std::filesystem::path config = files_.path() / "prometheus.yml";
    std::ofstream(config) << absl::StrCat(R"(global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: taskboard-scheduler
    static_configs:
      - targets: ['127.0.0.1:)",
                                          scheduler_port, R"(']
  - job_name: taskboard-worker
    static_configs:
      - targets: ['127.0.0.1:)",
                                          worker_port, "']\n");
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(
        {kPrometheus, absl::StrCat("--config.file=", config.string()),
         absl::StrCat("--storage.tsdb.path=", (files_.path() / "tsdb").string()),
         "--web.listen-address=127.0.0.1:0", "--log.level=info"},
        PrometheusLogPath().string());
    if (!child.ok()) return child.status();
    prometheus_ = *std::move(child);
    const absl::Time deadline = absl::Now() + kWait;
    while (absl::Now() < deadline && prometheus_->Running()) {
      if (const int port = ListeningPort(PrometheusLog()); port > 0) {
        http_ = std::make_unique<httplib::Client>("127.0.0.1", port);
        return port;
      }
      absl::SleepFor(kPoll);
    }
    return absl::UnavailableError(
        absl::StrCat("prometheus did not report its port:\n", PrometheusLog()));
  }

  // The instant vector `query` evaluates to now; an error when the API
  // does not answer with success (e.g. while Prometheus is still starting).
  absl::StatusOr<std::vector<Sample>> Query(const std::string& query) {
    httplib::Result response =
        http_->Get("/api/v1/query", httplib::Params{{"query", query}}, httplib::Headers{});
    if (!response) return absl::UnavailableError(httplib::to_string(response.error()));
    if (response->status != 200) {
      return absl::UnavailableError(absl::StrCat(response->status, ": ", response->body));
    }
    absl::StatusOr<Json> body = ParseJson(response->body);
    if (!body.ok()) return body.status();
    if (body->value("status", "") != "success" || !(*body)["data"]["result"].is_array()) {
      return absl::InternalError(absl::StrCat("unexpected answer: ", response->body));
    }
    std::vector<Sample> samples;
    for (const Json& result : (*body)["data"]["result"]) {
      Sample sample{result["metric"], 0};
      // "value": [unix time, "the value as text"]
      if (!absl::SimpleAtod(result["value"][1].get<std::string>(), &sample.value)) {
        return absl::InternalError(absl::StrCat("unparsable value in ", result.dump()));
      }
      samples.push_back(std::move(sample));
    }
    return samples;
  }

  // Queries until `accept` returns true for the samples or kWait passes;
  // false with a test failure naming the last answer then.
  bool QueryUntil(const std::string& query,
                  const std::function<bool(const std::vector<Sample>&)>& accept) {
    const absl::Time deadline = absl::Now() + kWait;
    std::string last = "no answer";
    while (absl::Now() < deadline) {
      absl::StatusOr<std::vector<Sample>> samples = Query(query);
      if (samples.ok() && accept(*samples)) return true;
      last = samples.ok() ? absl::StrCat(samples->size(), " samples")
                          : std::string(samples.status().message());
      absl::SleepFor(kPoll);
    }
    ADD_FAILURE() << "Prometheus never answered `" << query << "` as expected (last: " << last
                  << ")\n--- prometheus.log\n"
                  << PrometheusLog() << "\n"
                  << cluster_.Logs();
    return false;
  }

  std::filesystem::path PrometheusLogPath() const { return files_.path() / "prometheus.log"; }
  std::string PrometheusLog() const { return ReadFileOrEmpty(PrometheusLogPath().string()); }

  // Before cluster_, whose options name files in it, and before
  // prometheus_, whose storage is in it.
  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  std::unique_ptr<ChildProcess> prometheus_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(PrometheusServerTest, ScrapesBothServices_ReadyQueueDepthPerAgentAndTargetsUp) {
  absl::StatusOr<int> scheduler_port = ReadPortFile(files_.path() / "scheduler.metrics.port");
  ASSERT_THAT(scheduler_port, IsOk()) << cluster_.Logs();
  absl::StatusOr<int> worker_port = ReadPortFile(files_.path() / "worker.metrics.port");
  ASSERT_THAT(worker_port, IsOk()) << cluster_.Logs();
  ExpectPromtoolClean(*scheduler_port, "scheduler");
  ExpectPromtoolClean(*worker_port, "worker");

  ASSERT_THAT(StartPrometheus(*scheduler_port, *worker_port), IsOk());

  // 30 tasks of half a second on one slot: the echo queue stays non-empty for
  // about 15 s, many scrapes.
  std::string board = "name: queued\nkind: board\nboard:\n  tasks:\n";
  for (int i = 0; i < 30; ++i) {
    absl::StrAppend(&board, "    - id: t", i, "\n      agent: echo\n      task: sleep 0.5 t", i,
                    "\n");
  }
  absl::StatusOr<std::string> run_id = cluster_.Submit(board);
  ASSERT_THAT(run_id, IsOk()) << cluster_.Logs();

  EXPECT_TRUE(QueryUntil(R"(taskboard_scheduler_ready_queue_depth{agent="echo"})",
                         [](const std::vector<Sample>& samples) {
                           return samples.size() == 1 && samples[0].value >= 1 &&
                                  samples[0].labels.value("job", "") == "taskboard-scheduler";
                         }));
  for (const char* job : {"taskboard-scheduler", "taskboard-worker"}) {
    EXPECT_TRUE(QueryUntil(absl::StrCat(R"(up{job=")", job, R"("})"),
                           [](const std::vector<Sample>& samples) {
                             return samples.size() == 1 && samples[0].value == 1;
                           }))
        << job;
  }
}

}  // namespace
}  // namespace taskboard
