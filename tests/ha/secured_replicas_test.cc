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
#include "absl/time/time.h"
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
#include "tests/ha/replica_cluster.h"
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
  void SetUp() override {
    ASSERT_FALSE(testing::TestCertificatesDir().empty())
        << "could not make test certificates with the openssl CLI; install it "
           "(scripts/install-deps.sh --test)";
    std::ofstream(dir_.path() / "tokens.yaml")
        << "tokens:\n"
        << "  - {token: " << kAdminToken << ", name: replicas, role: admin}\n"
        << "  - {token: " << kClientToken << ", name: ci, role: client, tenant: acme}\n";
    testing::StartReplicasOrSkip(
        {
            .replicas = kReplicas,
            .cluster = "secured",
            .scheduler_flags =
                {absl::StrCat("--tls-cert=", testing::TestCertificate("server.pem")),
                 absl::StrCat("--tls-key=", testing::TestCertificate("server.key")),
                 absl::StrCat("--auth-tokens=", (dir_.path() / "tokens.yaml").string()),
                 absl::StrCat("--ha-tls-ca=", testing::TestCertificate("ca.pem"))},
            // The token through its variable, as the Kubernetes overlay passes it.
            .scheduler_env = {{"TASKBOARD_HA_TOKEN", kAdminToken}},
        },
        &cluster_);
  }

  std::optional<double> Sample(int i, const std::string& series) {
    return cluster_->Sample(i, series);
  }
  std::optional<int> WaitForOneLeader(std::chrono::seconds timeout, int not_this = -1) {
    return cluster_->WaitForOneLeader(absl::FromChrono(timeout), not_this);
  }
  std::string Logs() const { return cluster_->Logs(); }

  std::shared_ptr<grpc::Channel> TlsChannel(int i) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = testing::TestCertificatePem("ca.pem");
    return grpc::CreateChannel(cluster_->Address(i), grpc::SslCredentials(options));
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
         cluster_->Addresses(), "--tls-ca",
         testing::TestCertificate("ca.pem"), "--token", token},
        output);
    if (!cli.ok()) return cli.status();
    std::optional<int> code = (*cli)->WaitFor(30'000);
    if (!code.has_value()) return absl::DeadlineExceededError("taskboard admin ha status hung");
    return std::make_pair(*code, ReadFileOrEmpty(output));
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::ReplicaCluster> cluster_;
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
  EXPECT_EQ(replicas[follower].value("leader", ""), cluster_->Address(*leader));
  EXPECT_EQ(replicas[*leader]["inSync"], Json::array({absl::StrCat("s", follower)}));
  // A client's token sees nothing of the replicas.
  absl::StatusOr<std::pair<int, std::string>> refused = HaStatus(kClientToken);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->first, 2) << refused->second;
  EXPECT_TRUE(absl::StrContains(refused->second, "needs role admin")) << refused->second;

  // Killed, the leader is replaced by the follower, which holds the run.
  cluster_->Kill(*leader);
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
