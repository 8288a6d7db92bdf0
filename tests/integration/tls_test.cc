// TLS and mTLS across real processes (docs/security.md#tls-and-mtls), with the
// certificates of tests/testing/test_certificates.h.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_certificates.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::taskboard::testing::ClusterOptions;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::TestChannel;
using ::testing::HasSubstr;

const std::filesystem::path& CertsDir() { return testing::TestCertificatesDir(); }

std::string Cert(const char* name) { return testing::TestCertificate(name); }

std::string ReadPem(const char* name) { return testing::TestCertificatePem(name); }

std::shared_ptr<grpc::ChannelCredentials> ClientTls(bool with_cert) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadPem("ca.pem");
  if (with_cert) {
    options.pem_cert_chain = ReadPem("client.pem");
    options.pem_private_key = ReadPem("client.key");
  }
  return grpc::SslCredentials(options);
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  return context;
}

constexpr char kFlow[] = "name: one\nphases:\n  - id: a\n    agent: echo\n    task: echo hi\n";

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(CertsDir().empty())
        << "could not make test certificates with the openssl CLI; install it "
           "(scripts/install-deps.sh --test)";
  }

  // Submits kFlow through the cluster's client and waits for it to complete.
  void RunToCompletion(testing::Cluster& cluster) {
    absl::StatusOr<std::string> run_id = cluster.Submit(kFlow);
    ASSERT_THAT(run_id.status(), IsOk()) << cluster.Logs();
    absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id, 30'000);
    ASSERT_THAT(run.status(), IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster.Logs();
  }
};

TEST_F(TlsTest, Tls_WorkerAndClientConnectOverTls_PlaintextIsRefused) {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.key")};
  options.worker_flags = {"--tls-ca", Cert("ca.pem")};
  options.client_credentials = ClientTls(false);
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  RunToCompletion(cluster);

  auto plaintext = v1::Scheduler::NewStub(TestChannel(cluster.address()));
  v1::ListRunsResponse listed;
  EXPECT_EQ(plaintext->ListRuns(Context().get(), {}, &listed).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

// A scheduler (no workers) with the test certificate and an HTTP port on
// loopback, whose chosen port it writes to `port_file`; `extra` flags after.
ClusterOptions HttpPortOptions(const std::string& port_file, std::vector<std::string> extra = {}) {
  ClusterOptions options;
  options.workers = 0;
  options.scheduler_flags = {"--tls-cert",       Cert("server.pem"), "--tls-key",
                             Cert("server.key"), "--http-listen",    "127.0.0.1:0",
                             "--http-port-file", port_file};
  for (std::string& flag : extra) options.scheduler_flags.push_back(std::move(flag));
  options.client_credentials = ClientTls(false);
  return options;
}

int ReadPort(const std::string& port_file) {
  int port = 0;
  std::ifstream(port_file) >> port;
  return port;
}

// A scheduler with a certificate serves its HTTP port (the HTTP API, the
// console: bearer tokens) as HTTPS with it, without being asked, and refuses
// plain HTTP there.
TEST_F(TlsTest, Tls_HttpPortServesHttpsWithTheSameCertificateByDefault) {
  testing::TempDir files;
  const std::string port_file = (files.path() / "http.port").string();
  testing::Cluster cluster(HttpPortOptions(port_file));
  ASSERT_THAT(cluster.Start(), IsOk());
  const int port = ReadPort(port_file);
  ASSERT_GT(port, 0) << cluster.Logs();

  httplib::SSLClient https("127.0.0.1", port);
  https.set_ca_cert_path(Cert("ca.pem").c_str());
  https.enable_server_certificate_verification(true);
  httplib::Result health = https.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  httplib::Result runs = https.Post("/api/v1/ListRuns", "{}", "application/json");
  ASSERT_TRUE(runs) << httplib::to_string(runs.error());
  EXPECT_EQ(runs->status, 200) << runs->body;

  httplib::Client plain("127.0.0.1", port);
  plain.set_connection_timeout(5, 0);
  plain.set_read_timeout(5, 0);
  httplib::Result refused = plain.Get("/healthz");
  EXPECT_TRUE(!refused || refused->status != 200);
}

// --http-tls=false keeps the HTTP port plain (behind a TLS-terminating proxy
// on the same host) while gRPC stays TLS.
TEST_F(TlsTest, Tls_HttpTlsFalse_HttpPortStaysPlain) {
  testing::TempDir files;
  const std::string port_file = (files.path() / "http.port").string();
  testing::Cluster cluster(HttpPortOptions(port_file, {"--http-tls=false"}));
  ASSERT_THAT(cluster.Start(), IsOk());
  const int port = ReadPort(port_file);
  ASSERT_GT(port, 0) << cluster.Logs();

  httplib::Client plain("127.0.0.1", port);
  plain.set_connection_timeout(5, 0);
  plain.set_read_timeout(5, 0);
  httplib::Result health = plain.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
}

TEST_F(TlsTest, HttpTlsWithoutACertificate_SchedulerExitsNamingTheFlags) {
  testing::TempDir dir;
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler =
      ChildProcess::Spawn({testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen",
                           "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--http-tls"},
                          log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), 2);
  EXPECT_THAT(ReadFileOrEmpty(log), HasSubstr("--http-tls serves the --http-listen port with"));
}

TEST_F(TlsTest, Mtls_WithTokens_ClientsNeedACertificateAndAToken) {
  testing::TempDir dir;
  const std::string tokens = (dir.path() / "tokens.yaml").string();
  std::ofstream(tokens) << "tokens:\n"
                           "  - {token: client-token-0123456789, name: ci, role: client, "
                           "tenant: acme}\n"
                           "  - {token: worker-token-0123456789, name: pool, role: worker}\n";
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {
      "--tls-cert",      Cert("server.pem"), "--tls-key",     Cert("server.key"),
      "--tls-client-ca", Cert("ca.pem"),     "--auth-tokens", tokens};
  options.worker_flags = {"--tls-ca",  Cert("ca.pem"),     "--tls-cert", Cert("client.pem"),
                          "--tls-key", Cert("client.key"), "--token",    "worker-token-0123456789"};
  options.client_credentials = ClientTls(true);
  options.client_token = "client-token-0123456789";
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  RunToCompletion(cluster);

  // TLS without a client certificate: the handshake fails.
  auto no_cert = v1::Scheduler::NewStub(
      TestChannel(cluster.address(), "client-token-0123456789", ClientTls(false)));
  v1::ListRunsResponse listed;
  EXPECT_EQ(no_cert->ListRuns(Context().get(), {}, &listed).error_code(),
            grpc::StatusCode::UNAVAILABLE);

  // The CLI with its flags lists the run; without --token it is told how.
  const std::string out = (dir.path() / "cli.log").string();
  std::vector<std::string> argv = {testing::BinaryPath("taskboard"),
                                   "runs",
                                   "--scheduler",
                                   cluster.address(),
                                   "--tls-ca",
                                   Cert("ca.pem"),
                                   "--tls-cert",
                                   Cert("client.pem"),
                                   "--tls-key",
                                   Cert("client.key")};
  std::vector<std::string> with_token = argv;
  with_token.insert(with_token.end(), {"--token", "client-token-0123456789"});
  absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(with_token, out);
  ASSERT_THAT(cli.status(), IsOk());
  EXPECT_EQ((*cli)->WaitFor(30'000), 0) << ReadFileOrEmpty(out);
  EXPECT_THAT(ReadFileOrEmpty(out), HasSubstr("run-"));

  const std::string refused_out = (dir.path() / "cli-refused.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> refused =
      ChildProcess::Spawn(argv, refused_out, {{"TASKBOARD_TOKEN", ""}});
  ASSERT_THAT(refused.status(), IsOk());
  EXPECT_EQ((*refused)->WaitFor(30'000), 2) << ReadFileOrEmpty(refused_out);
  EXPECT_THAT(ReadFileOrEmpty(refused_out), HasSubstr("--token"));
}

TEST_F(TlsTest, HalfConfiguredTls_SchedulerExitsNamingTheFlags) {
  testing::TempDir dir;
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler =
      ChildProcess::Spawn({testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen",
                           "127.0.0.1:0", "--tls-cert", Cert("server.pem")},
                          log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), 2);
  EXPECT_THAT(ReadFileOrEmpty(log), HasSubstr("--tls-cert and --tls-key go together"));
}

}  // namespace
}  // namespace taskboard
