// Replicas of a scheduler that serves TLS and requires tokens
// (docs/high-availability.md#securing-replicas): two real taskboard-scheduler
// processes elected through a real etcd. The follower replicates over TLS with
// its --ha-token; a caller without a token, or with a client's, cannot read the
// leader's replication stream or checkpoint (they carry every tenant's state);
// `taskboard admin ha status` shows the leader and its in-sync follower to an
// admin only; after the leader is killed the follower leads with the run it
// replicated.

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/testing/cluster.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/metrics_port.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_certificates.h"

namespace taskboard {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReplicas = 2;
constexpr char kAdminToken[] = "replica-admin-token-0123456789";
constexpr char kClientToken[] = "client-token-0123456789";
constexpr char kFlow[] = "name: secured\nphases:\n  - id: a\n    agent: echo\n    task: echo hi\n";

class SecuredReplicasTest : public ::testing::Test {
 protected:
  struct Replica {
    std::unique_ptr<ChildProcess> process;
    std::string address;
    int metrics_port = 0;
  };

  void SetUp() override {
    ASSERT_FALSE(testing::TestCertificatesDir().empty())
        << "could not make test certificates with the openssl CLI; install it "
           "(scripts/install-deps.sh --test)";
    absl::StatusOr<std::unique_ptr<testing::EtcdCluster>> etcd = testing::EtcdCluster::Start();
    if (!etcd.ok() && absl::StrContains(etcd.status().message(), "/usr/bin/etcd")) {
      GTEST_SKIP() << "etcd is not installed (Debian package etcd-server): "
                   << etcd.status().message();
    }
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
    std::ofstream(dir_.path() / "tokens.yaml")
        << "tokens:\n"
        << "  - {token: " << kAdminToken << ", name: replicas, role: admin}\n"
        << "  - {token: " << kClientToken << ", name: ci, role: client, tenant: acme}\n";
    replicas_.resize(kReplicas);
    for (int i = 0; i < kReplicas; ++i) {
      absl::Status started = StartReplica(i);
      ASSERT_TRUE(started.ok()) << started << Logs();
    }
  }

  void TearDown() override {
    for (Replica& replica : replicas_) replica.process.reset();
  }

  std::filesystem::path File(int i, const std::string& name) const {
    return dir_.path() / absl::StrCat("s", i, ".", name);
  }

  absl::Status StartReplica(int i) {
    std::vector<std::string> argv = {
        testing::BinaryPath("taskboard-scheduler"),
        "--listen=127.0.0.1:0",
        absl::StrCat("--data-dir=", File(i, "data").string()),
        "--durability=wal",
        absl::StrCat("--port-file=", File(i, "port").string()),
        "--metrics-listen=127.0.0.1:0",
        absl::StrCat("--metrics-port-file=", File(i, "metrics-port").string()),
        absl::StrCat("--tls-cert=", testing::TestCertificate("server.pem")),
        absl::StrCat("--tls-key=", testing::TestCertificate("server.key")),
        absl::StrCat("--auth-tokens=", (dir_.path() / "tokens.yaml").string()),
        absl::StrCat("--ha-tls-ca=", testing::TestCertificate("ca.pem")),
        absl::StrCat("--ha-etcd-endpoints=", absl::StrJoin(etcd_->endpoints(), ",")),
        "--ha-cluster=secured",
        absl::StrCat("--ha-replica-id=s", i),
        "--ha-lease-ttl=2s"};
    // The token through its variable, as the Kubernetes overlay passes it.
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Spawn(argv, File(i, "log").string(), {{"TASKBOARD_HA_TOKEN", kAdminToken}});
    if (!child.ok()) return child.status();
    Replica& replica = replicas_.at(i);
    replica.process = *std::move(child);
    absl::StatusOr<int> port = WaitForPortFile(*replica.process, File(i, "port").string(), 30'000);
    if (!port.ok()) return port.status();
    replica.address = absl::StrCat("127.0.0.1:", *port);
    std::ifstream(File(i, "metrics-port")) >> replica.metrics_port;
    return replica.metrics_port == 0 ? absl::InternalError("no metrics port") : absl::OkStatus();
  }

  int Get(int i, const std::string& path, std::string* body = nullptr) {
    return testing::GetOnMetricsPort(replicas_.at(i).metrics_port, path, body);
  }

  std::optional<double> Sample(int i, const std::string& series) {
    return testing::SampleOnMetricsPort(replicas_.at(i).metrics_port, series);
  }

  std::optional<int> WaitForOneLeader(std::chrono::seconds timeout, int not_this = -1) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      std::vector<int> ready;
      for (int i = 0; i < kReplicas; ++i) {
        if (i != not_this && Get(i, "/readyz") == 200) ready.push_back(i);
      }
      if (ready.size() == 1) return ready.front();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

  std::shared_ptr<grpc::Channel> TlsChannel(int i) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = testing::TestCertificatePem("ca.pem");
    return grpc::CreateChannel(replicas_.at(i).address, grpc::SslCredentials(options));
  }

  std::unique_ptr<grpc::ClientContext> Context(const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    return context;
  }

  // The status a FetchCheckpoint call with `token` ends with.
  grpc::Status FetchCheckpoint(int i, const std::string& token) {
    auto stub = ha::v1::ReplicaService::NewStub(TlsChannel(i));
    std::unique_ptr<grpc::ClientContext> context = Context(token);
    ha::v1::FetchCheckpointRequest request;
    request.set_replica_id("intruder");
    auto reader = stub->FetchCheckpoint(context.get(), request);
    ha::v1::CheckpointChunk chunk;
    while (reader->Read(&chunk)) {
    }
    return reader->Finish();
  }

  // `taskboard admin ha status --json` over both replicas with `token`: its
  // exit code and output.
  absl::StatusOr<std::pair<int, std::string>> HaStatus(const std::string& token) {
    const std::string output = (dir_.path() / "ha-status.out").string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(
        {testing::BinaryPath("taskboard"), "admin", "ha", "status", "--json", "--scheduler",
         absl::StrCat(replicas_.at(0).address, ",", replicas_.at(1).address), "--tls-ca",
         testing::TestCertificate("ca.pem"), "--token", token},
        output);
    if (!cli.ok()) return cli.status();
    std::optional<int> code = (*cli)->WaitFor(30'000);
    if (!code.has_value()) return absl::DeadlineExceededError("taskboard admin ha status hung");
    return std::make_pair(*code, ReadFileOrEmpty(output));
  }

  std::string Logs() const {
    std::string logs;
    for (int i = 0; i < kReplicas; ++i) {
      const std::string text = ReadFileOrEmpty(File(i, "log").string());
      absl::StrAppend(&logs, "\n--- s", i, ".log\n",
                      text.size() > 4000 ? text.substr(text.size() - 4000) : text);
    }
    return logs;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::EtcdCluster> etcd_;
  std::vector<Replica> replicas_;
};

TEST_F(SecuredReplicasTest, FollowerReplicatesWithItsToken_OthersCannotReadTheStream) {
  std::optional<int> leader = WaitForOneLeader(std::chrono::seconds(30));
  ASSERT_TRUE(leader.has_value()) << "no single leader" << Logs();
  const int follower = 1 - *leader;

  // The replication stream and checkpoint need an admin token.
  grpc::Status anonymous = FetchCheckpoint(*leader, "");
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAUTHENTICATED) << anonymous.error_message();
  grpc::Status client = FetchCheckpoint(*leader, kClientToken);
  EXPECT_EQ(client.error_code(), grpc::StatusCode::PERMISSION_DENIED) << client.error_message();
  EXPECT_TRUE(absl::StrContains(client.error_message(), "needs role admin"))
      << client.error_message();

  // A run submitted over TLS reaches the follower's store.
  auto scheduler = v1::Scheduler::NewStub(TlsChannel(*leader));
  v1::SubmitRunRequest submit;
  submit.mutable_source()->set_text(kFlow);
  v1::SubmitRunResponse submitted;
  grpc::Status status = scheduler->SubmitRun(Context(kAdminToken).get(), submit, &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message() << Logs();

  std::optional<double> written;
  std::optional<double> applied;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    written = Sample(*leader, "taskboard_scheduler_ha_applied_index");
    applied = Sample(follower, "taskboard_scheduler_ha_applied_index");
    if (written.value_or(0) > 0 && applied.value_or(0) >= *written) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(written.value_or(0) > 0 && applied.value_or(0) >= *written)
      << "the follower applied " << applied.value_or(-1) << " of " << written.value_or(-1)
      << Logs();

  // `taskboard admin ha status` asks both replicas: one leads, the other is in sync.
  Json replicas;
  const auto in_sync_deadline = Clock::now() + std::chrono::seconds(20);
  do {
    absl::StatusOr<std::pair<int, std::string>> status = HaStatus(kAdminToken);
    ASSERT_TRUE(status.ok()) << status.status();
    ASSERT_EQ(status->first, 0) << status->second << Logs();
    replicas = Json::parse(status->second, nullptr, false)["replicas"];
    ASSERT_TRUE(replicas.is_array() && replicas.size() == 2) << status->second;
  } while (replicas[*leader].value("inSync", Json::array()).empty() &&
           Clock::now() < in_sync_deadline);
  EXPECT_EQ(replicas[*leader].value("role", ""), "leader");
  EXPECT_EQ(replicas[follower].value("role", ""), "follower");
  EXPECT_EQ(replicas[follower].value("leader", ""), replicas_.at(*leader).address);
  EXPECT_EQ(replicas[*leader]["inSync"], Json::array({absl::StrCat("s", follower)}));
  // A client's token sees nothing of the replicas.
  absl::StatusOr<std::pair<int, std::string>> refused = HaStatus(kClientToken);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->first, 2) << refused->second;
  EXPECT_TRUE(absl::StrContains(refused->second, "needs role admin")) << refused->second;

  // Killed, the leader is replaced by the follower, which holds the run.
  replicas_.at(*leader).process->Signal(SIGKILL);
  replicas_.at(*leader).process->WaitFor(10'000);
  std::optional<int> next = WaitForOneLeader(std::chrono::seconds(20), *leader);
  ASSERT_EQ(next, follower) << Logs();
  auto promoted = v1::Scheduler::NewStub(TlsChannel(follower));
  v1::GetRunRequest get;
  get.set_run_id(submitted.run_id());
  v1::GetRunResponse got;
  status = promoted->GetRun(Context(kAdminToken).get(), get, &got);
  ASSERT_TRUE(status.ok()) << status.error_message() << Logs();
  EXPECT_EQ(got.run().run_id(), submitted.run_id());
}

}  // namespace
}  // namespace taskboard
