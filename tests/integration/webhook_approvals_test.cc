// The approval webhook with real processes (docs/approvals.md#notify): a
// receiver (cpp-httplib on port 0) gets approval.waiting signed with the
// secret, then approval.decided once the approval is decided over gRPC; a
// receiver answering 500 twice gets the same delivery three times; a flow
// webhook outside --approval-webhook-allow is refused naming the flag; the
// pending gauge goes 1 then 0 and promtool accepts /metrics; a secret file
// that cannot be read stops the scheduler at start with exit code 2.

#include <condition_variable>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/hmac_sha256.h"
#include "common/json.h"
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

constexpr char kSecret[] = "whsec-integration";

struct Received {
  std::string path;
  std::string event;
  std::string delivery;
  std::string timestamp;
  std::string signature;
  std::string content_type;
  std::string body;
};

// An HTTP receiver on 127.0.0.1 and a port of its choosing. Each path
// answers the statuses scripted for it in turn, then 200.
class Receiver {
 public:
  Receiver() {
    server_.Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
      std::lock_guard<std::mutex> lock(mu_);
      received_.push_back({request.path, request.get_header_value("X-Taskboard-Event"),
                           request.get_header_value("X-Taskboard-Delivery"),
                           request.get_header_value("X-Taskboard-Timestamp"),
                           request.get_header_value("X-Taskboard-Signature"),
                           request.get_header_value("Content-Type"), request.body});
      std::vector<int>& script = scripts_[request.path];
      response.status = 200;
      if (!script.empty()) {
        response.status = script.front();
        script.erase(script.begin());
      }
      response.set_content("ok", "text/plain");
      changed_.notify_all();
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }

  std::string Url(const std::string& path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  void Script(const std::string& path, std::vector<int> statuses) {
    std::lock_guard<std::mutex> lock(mu_);
    scripts_[path] = std::move(statuses);
  }
  // Waits up to `timeout` for `count` requests to `path` carrying `event`;
  // those received by then.
  std::vector<Received> WaitFor(const std::string& path, const std::string& event, size_t count,
                                std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<Received> matching;
    changed_.wait_for(lock, timeout, [&] {
      matching.clear();
      for (const Received& one : received_) {
        if (one.path == path && one.event == event) matching.push_back(one);
      }
      return matching.size() >= count;
    });
    return matching;
  }
  size_t Count(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t count = 0;
    for (const Received& one : received_) count += one.path == path ? 1 : 0;
    return count;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Received> received_;
  std::map<std::string, std::vector<int>> scripts_;
};

Json Body(const Received& received) {
  absl::StatusOr<Json> parsed = ParseJson(received.body);
  EXPECT_TRUE(parsed.ok()) << received.body;
  return parsed.ok() ? *parsed : Json();
}

std::string ApprovalFlow(const std::string& name, const std::string& webhook = "") {
  return absl::StrCat("name: ", name, "\n",
                      webhook.empty() ? "" : absl::StrCat("approvalWebhook: ", webhook, "\n"),
                      R"(phases:
  - id: ok
    type: approval
    prompt: "Release it?"
    form: [{name: version, required: true}]
  - id: after
    agent: echo
    task: "echo released {steps.ok.json.values.version}"
    dependsOn: [ok]
)");
}

class WebhookApprovalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(SecretPath()) << kSecret << "\n";
    testing::ClusterOptions options;
    options.workers = 1;
    options.scheduler_flags = {"--approval-webhook",
                               receiver_.Url("/all"),
                               "--approval-webhook-secret-file",
                               SecretPath(),
                               "--approval-webhook-allow",
                               receiver_.Url("/team/"),
                               "--metrics-listen",
                               "127.0.0.1:0",
                               "--metrics-port-file",
                               MetricsPortFile()};
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  std::string SecretPath() const { return (dir_.path() / "webhook.secret").string(); }
  std::string MetricsPortFile() const { return (dir_.path() / "metrics.port").string(); }

  std::string Metrics() {
    int port = 0;
    std::ifstream(MetricsPortFile()) >> port;
    httplib::Client http("127.0.0.1", port);
    httplib::Result response = http.Get("/metrics");
    EXPECT_TRUE(response && response->status == 200) << "no /metrics on port " << port;
    return response ? response->body : "";
  }
  // Polls /metrics until `series` reads `value` (gauges follow the engine's
  // batches) or 10 s pass; the last value read.
  std::optional<double> WaitForSample(const std::string& series, double value) {
    std::optional<double> read;
    for (int i = 0; i < 200; ++i) {
      read = testing::SampleValue(Metrics(), series);
      if (read == value) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return read;
  }

  grpc::Status Decide(const std::string& run_id, const std::string& version) {
    v1::DecideApprovalRequest request;
    request.set_run_id(run_id);
    request.set_step_id("ok");
    request.set_decision("approve");
    request.set_comment("ship it");
    (*request.mutable_values())["version"] = version;
    v1::DecideApprovalResponse response;
    grpc::ClientContext context;
    return cluster_->client().DecideApproval(&context, request, &response);
  }

  testing::TempDir dir_;
  Receiver receiver_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(WebhookApprovalsTest, WaitingThenDecided_SignedDelivered_GaugeOneThenZero) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(ApprovalFlow("release"));
  ASSERT_THAT(run_id.status(), IsOk());

  std::vector<Received> waiting = receiver_.WaitFor("/all", "approval.waiting", 1);
  ASSERT_EQ(waiting.size(), 1u) << cluster_->Logs();
  EXPECT_EQ(waiting[0].content_type, "application/json");
  EXPECT_THAT(waiting[0].delivery, ::testing::StartsWith("dlv_"));
  EXPECT_EQ(waiting[0].signature,
            absl::StrCat("sha256=", HmacSha256Hex(kSecret, absl::StrCat(waiting[0].timestamp, ".",
                                                                        waiting[0].body))));
  Json asked = Body(waiting[0]);
  EXPECT_EQ(asked["event"], "approval.waiting");
  EXPECT_EQ(asked["delivery_id"], waiting[0].delivery);
  EXPECT_EQ(asked["run_id"], *run_id);
  EXPECT_EQ(asked["step_id"], "ok");
  EXPECT_EQ(asked["flow_name"], "release");
  EXPECT_EQ(asked["prompt"], "Release it?");
  EXPECT_EQ(asked["form"][0]["name"], "version");
  EXPECT_THAT(WaitForSample(R"(taskboard_approvals_pending{tenant=""})", 1), Optional(1.0));

  grpc::Status decided = Decide(*run_id, "2.0");
  ASSERT_TRUE(decided.ok()) << decided.error_message();
  std::vector<Received> done = receiver_.WaitFor("/all", "approval.decided", 1);
  ASSERT_EQ(done.size(), 1u) << cluster_->Logs();
  Json answer = Body(done[0]);
  EXPECT_EQ(answer["decision"], "approve");
  EXPECT_EQ(answer["values"]["version"], "2.0");
  EXPECT_EQ(answer["comment"], "ship it");
  EXPECT_EQ(answer["decided_by"], "local");
  EXPECT_NE(done[0].delivery, waiting[0].delivery);
  EXPECT_EQ(done[0].signature,
            absl::StrCat("sha256=", HmacSha256Hex(kSecret, absl::StrCat(done[0].timestamp, ".",
                                                                        done[0].body))));

  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_THAT(WaitForSample(R"(taskboard_approvals_pending{tenant=""})", 0), Optional(0.0));
  std::string metrics = Metrics();
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_approvals_decided_total{decision="approve"})"),
      Optional(1.0));
  EXPECT_THAT(testing::SampleValue(metrics, "taskboard_approval_oldest_pending_seconds"),
              Optional(0.0));
  std::optional<testing::Promtool> promtool =
      testing::CheckMetrics(metrics, (dir_.path() / "scheduler.metrics").string());
  if (promtool.has_value()) {
    EXPECT_EQ(promtool->exit_code, 0) << promtool->output;
    EXPECT_EQ(promtool->output, "") << metrics;
  }
}

TEST_F(WebhookApprovalsTest, FlowWebhookAnswers500Twice_ThreeAttemptsSameDelivery) {
  receiver_.Script("/team/flaky", {500, 500});
  absl::StatusOr<std::string> run_id =
      cluster_->Submit(ApprovalFlow("flaky", receiver_.Url("/team/flaky")));
  ASSERT_THAT(run_id.status(), IsOk());
  // Retried after 1 s and 2 s.
  std::vector<Received> attempts = receiver_.WaitFor("/team/flaky", "approval.waiting", 3);
  ASSERT_EQ(attempts.size(), 3u) << cluster_->Logs();
  EXPECT_EQ(attempts[1].delivery, attempts[0].delivery);
  EXPECT_EQ(attempts[2].delivery, attempts[0].delivery);
  EXPECT_EQ(attempts[2].body, attempts[0].body);
  // The scheduler-wide webhook got its own delivery, at once.
  ASSERT_EQ(receiver_.WaitFor("/all", "approval.waiting", 1).size(), 1u);
  EXPECT_THAT(WaitForSample(R"(taskboard_approval_webhook_deliveries_total{outcome="retried"})", 2),
              Optional(2.0));
  EXPECT_THAT(
      WaitForSample(R"(taskboard_approval_webhook_deliveries_total{outcome="delivered"})", 2),
      Optional(2.0));
  // Delivered: no fourth attempt follows.
  ASSERT_TRUE(Decide(*run_id, "1").ok());
  ASSERT_EQ(receiver_.WaitFor("/team/flaky", "approval.decided", 1).size(), 1u);
  EXPECT_EQ(receiver_.WaitFor("/team/flaky", "approval.waiting", 3).size(), 3u);
}

TEST_F(WebhookApprovalsTest, FlowWebhookNotAllowed_RefusedNamingTheFlag) {
  const std::string flow = ApprovalFlow("sneaky", "http://169.254.169.254/latest");
  absl::StatusOr<std::string> run_id = cluster_->Submit(flow);
  EXPECT_THAT(run_id.status(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("approvalWebhook")));
  EXPECT_THAT(run_id.status().message(), HasSubstr("--approval-webhook-allow"));

  v1::SaveFlowRequest save;
  save.mutable_source()->set_text(flow);
  v1::SaveFlowResponse saved;
  grpc::ClientContext context;
  grpc::Status status = cluster_->client().SaveFlow(&context, save, &saved);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("--approval-webhook-allow"));

  // A prefix that only looks like the allowed one is refused too.
  EXPECT_THAT(cluster_->Submit(ApprovalFlow("lookalike", receiver_.Url("/teamx/"))).status(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(cluster_->scheduler()->Running()) << cluster_->Logs();
}

TEST(WebhookFlagsStart, SecretFileUnreadable_ExitsTwoNamingTheFlag) {
  testing::TempDir dir;
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen", "127.0.0.1:0",
       "--approval-webhook", "http://127.0.0.1:9/hook", "--approval-webhook-secret-file",
       (dir.path() / "missing.secret").string()},
      log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), std::optional<int>(2));
  EXPECT_THAT(ReadFileOrEmpty(log), HasSubstr("--approval-webhook-secret-file"));
}

}  // namespace
}  // namespace taskboard
