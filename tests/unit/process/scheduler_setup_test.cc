// The checks of scheduler/process/scheduler_setup.h that touch nothing
// process-wide: the store's flags, the HTTP API's flags and the order of
// ResolveSchedulerSetup's errors, each naming its flag.

#include "scheduler/process/scheduler_setup.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::process {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

TEST(ApplyStoreFlags, Defaults_DataDirIsTaskboardDataWithFsync) {
  server::SchedulerServerOptions server;
  ASSERT_TRUE(ApplyStoreFlags(SchedulerOptions{}, server).ok());
  EXPECT_EQ(server.data_dir, "taskboard-data");
  EXPECT_EQ(server.durability, store::Durability::kSync);
  EXPECT_EQ(server.engine.retention_ms, int64_t{30} * 24 * 3600 * 1000);
  EXPECT_EQ(server.engine.cache_limits.max_ttl_ms, int64_t{7} * 24 * 3600 * 1000);
  EXPECT_EQ(server.engine.ledger_cache_bytes, int64_t{256} << 20);
}

TEST(ApplyStoreFlags, Memory_DropsTheDataDir) {
  SchedulerOptions options;
  options.memory = true;
  server::SchedulerServerOptions server;
  server.data_dir = "/var/lib/taskboard";
  ASSERT_TRUE(ApplyStoreFlags(options, server).ok());
  EXPECT_EQ(server.data_dir, "");
}

TEST(ApplyStoreFlags, GivenValues_AreConverted) {
  SchedulerOptions options;
  options.durability = "wal";
  options.retention = "0";
  options.cache_max_ttl = "90m";
  options.ledger_cache_mb = 3;
  server::SchedulerServerOptions server;
  server.data_dir = "/d";
  ASSERT_TRUE(ApplyStoreFlags(options, server).ok());
  EXPECT_EQ(server.data_dir, "/d");
  EXPECT_EQ(server.durability, store::Durability::kWal);
  EXPECT_EQ(server.engine.retention_ms, 0);
  EXPECT_EQ(server.engine.cache_limits.max_ttl_ms, 90 * 60 * 1000);
  EXPECT_EQ(server.engine.ledger_cache_bytes, 3 << 20);
}

TEST(ApplyStoreFlags, TextTheFlagsWouldRefuse_IsInvalidArgument) {
  SchedulerOptions options;
  options.retention = "soon";
  server::SchedulerServerOptions server;
  EXPECT_THAT(ApplyStoreFlags(options, server),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("--retention: ")));
}

TEST(HttpApiFromFlags, NoListen_IsNone) {
  absl::StatusOr<std::optional<web::ApiServerOptions>> api = HttpApiFromFlags(SchedulerOptions{});
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_FALSE(api->has_value());
}

TEST(HttpApiFromFlags, PortFileOrTlsWithoutListen_SaysWhatTheyNeed) {
  SchedulerOptions with_port_file;
  with_port_file.http.http_port_file = "/tmp/port";
  SchedulerOptions with_tls;
  with_tls.http.http_tls_given = true;
  SchedulerOptions with_trace_link;
  with_trace_link.http.trace_url_template = "https://tempo.example/trace/{trace_id}";
  for (const SchedulerOptions& options : {with_port_file, with_tls, with_trace_link}) {
    EXPECT_THAT(HttpApiFromFlags(options),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "--http-port-file, --http-tls, --http-console-token-file and "
                         "--trace-url-template need --http-listen"));
  }
}

TEST(HttpApiFromFlags, Listen_GivesHostAndPort) {
  SchedulerOptions options;
  options.http.http_listen = "127.0.0.1:0";
  absl::StatusOr<std::optional<web::ApiServerOptions>> api = HttpApiFromFlags(options);
  ASSERT_TRUE(api.ok()) << api.status();
  ASSERT_TRUE(api->has_value());
  EXPECT_EQ((*api)->host, "127.0.0.1");
  EXPECT_EQ((*api)->port, 0);
  EXPECT_EQ((*api)->tls_cert_file, "");
}

TEST(HttpApiFromFlags, ListenNotHostPort_NamesTheFlag) {
  SchedulerOptions options;
  options.http.http_listen = "nowhere";
  EXPECT_THAT(HttpApiFromFlags(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--http-listen 'nowhere'")));
}

TEST(ResolveSchedulerSetup, Defaults_ServeWithoutTlsOrTokens) {
  SchedulerOptions options;
  options.memory = true;
  options.port_file = "/tmp/p";
  absl::StatusOr<SchedulerSetup> setup = ResolveSchedulerSetup(options);
  ASSERT_TRUE(setup.ok()) << setup.status();
  EXPECT_EQ(setup->server.data_dir, "");
  EXPECT_EQ(setup->durability, "sync");
  EXPECT_EQ(setup->tls_mode, "off");
  EXPECT_EQ(setup->authenticator, nullptr);
  EXPECT_EQ(setup->server.authenticator, nullptr);
  EXPECT_EQ(setup->port_file, "/tmp/p");
  EXPECT_FALSE(setup->http_api.has_value());
  EXPECT_EQ(setup->metrics_listen, "");
}

TEST(ResolveSchedulerSetup, ReachableListenWithoutTokens_NamesBothWaysOut) {
  SchedulerOptions options;
  options.server.listen_address = "0.0.0.0:0";
  EXPECT_THAT(ResolveSchedulerSetup(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr("--auth-tokens"), HasSubstr("--insecure"))));
  options.insecure = true;
  options.memory = true;
  EXPECT_TRUE(ResolveSchedulerSetup(options).ok());
}

TEST(ResolveSchedulerSetup, TokensFile_IsLoadedAndHandedToTheServer) {
  testing::TempDir dir;
  SchedulerOptions options;
  options.memory = true;
  options.auth_tokens = WriteFile(dir.path() / "tokens.yaml",
                                  "tokens:\n"
                                  "  - token: adb05b554a0bdad67a3340574ba0f748\n"
                                  "    name: worker-pool\n"
                                  "    role: worker\n");
  absl::StatusOr<SchedulerSetup> setup = ResolveSchedulerSetup(options);
  ASSERT_TRUE(setup.ok()) << setup.status();
  ASSERT_NE(setup->authenticator, nullptr);
  EXPECT_EQ(setup->server.authenticator, setup->authenticator.get());
}

TEST(ResolveSchedulerSetup, MissingTokensFile_Fails) {
  testing::TempDir dir;
  SchedulerOptions options;
  options.auth_tokens = (dir.path() / "absent.yaml").string();
  EXPECT_FALSE(ResolveSchedulerSetup(options).ok());
}

TEST(ResolveSchedulerSetup, LlmLimitsWithAMistake_NamesTheFlag) {
  testing::TempDir dir;
  SchedulerOptions options;
  options.memory = true;
  options.llm_limits = WriteFile(dir.path() / "limits.yaml", "modles: {}\n");
  EXPECT_THAT(ResolveSchedulerSetup(options).status().message(), StartsWith("--llm-limits "));
}

TEST(ResolveSchedulerSetup, MetricsPortFileWithoutListen_Fails) {
  SchedulerOptions options;
  options.memory = true;
  options.http.metrics_port_file = "/tmp/m";
  EXPECT_THAT(ResolveSchedulerSetup(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--metrics-listen")));
}

TEST(ResolveSchedulerSetup, HttpFlagWithoutListen_FailsAfterTheMetricsFlags) {
  SchedulerOptions options;
  options.memory = true;
  options.http.http_port_file = "/tmp/h";
  EXPECT_THAT(ResolveSchedulerSetup(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("need --http-listen")));
  options.http.metrics_port_file = "/tmp/m";
  EXPECT_THAT(ResolveSchedulerSetup(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--metrics-listen")));
}

}  // namespace
}  // namespace taskboard::process

namespace taskboard::process {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(HaFromFlags, NoEndpoints_IsNone) {
  absl::StatusOr<std::optional<server::HaOptions>> ha = HaFromFlags(SchedulerOptions{});
  ASSERT_TRUE(ha.ok()) << ha.status();
  EXPECT_FALSE(ha->has_value());
}

TEST(HaFromFlags, OtherHaFlagWithoutEndpoints_NamesThem) {
  SchedulerOptions options;
  options.ha.cluster = "c";
  options.ha.lease_ttl = "2s";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--ha-cluster, --ha-lease-ttl need --ha-etcd-endpoints")));
}

TEST(HaFromFlags, MemoryOrNoDurability_AreRefusedNamingTheFlags) {
  SchedulerOptions memory;
  memory.ha.etcd_endpoints = "127.0.0.1:2379";
  memory.memory = true;
  EXPECT_THAT(HaFromFlags(memory).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--ha-etcd-endpoints cannot be used with --memory or "
                                 "--durability=none")));
  SchedulerOptions none;
  none.ha.etcd_endpoints = "127.0.0.1:2379";
  none.durability = "none";
  EXPECT_THAT(HaFromFlags(none).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--durability=none")));
  // Through the whole resolution too (main() exits 2 with it).
  EXPECT_THAT(ResolveSchedulerSetup(none).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ha-etcd-endpoints")));
}

TEST(HaFromFlags, Endpoints_AreSplitAndTheRestResolved) {
  SchedulerOptions options;
  options.durability = "wal";
  options.ha.etcd_endpoints = "127.0.0.1:2379, 127.0.0.1:2380,";
  options.ha.replica_id = "r1";
  options.ha.lease_ttl = "2s";
  options.ha.sync_timeout = "300ms";
  absl::StatusOr<std::optional<server::HaOptions>> ha = HaFromFlags(options);
  ASSERT_TRUE(ha.ok()) << ha.status();
  ASSERT_TRUE(ha->has_value());
  EXPECT_EQ((*ha)->sync_timeout, absl::Milliseconds(300));
  EXPECT_THAT((*ha)->etcd_endpoints, ::testing::ElementsAre("127.0.0.1:2379", "127.0.0.1:2380"));
  EXPECT_EQ((*ha)->replica_id, "r1");
  EXPECT_EQ((*ha)->lease_ttl, absl::Seconds(2));
  EXPECT_EQ((*ha)->cluster, "taskboard");

  options.ha.replica_id.clear();
  ha = HaFromFlags(options);
  ASSERT_TRUE(ha.ok());
  EXPECT_FALSE((*ha)->replica_id.empty());  // the host name
}

TEST(HaFromFlags, BadEndpointPrefixOrCluster_NameTheFlag) {
  SchedulerOptions options;
  options.ha.etcd_endpoints = "http://e:2379";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not host:port")));
  options.ha.etcd_endpoints = "e:2379";
  options.ha.etcd_prefix = "p";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ha-etcd-prefix")));
  options.ha.etcd_prefix = "/p";
  options.ha.cluster = "a/b";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ha-cluster")));
  options.ha.cluster = "c";
  options.ha.sync_timeout = "soon";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ha-sync-timeout")));
}

// With tokens or TLS on the replicas' port, a follower must bring a token and
// a CA to replicate; each half without the other is refused, naming both.
TEST(HaFromFlags, TokensOrTls_NeedTheReplicaTokenAndCa) {
  SchedulerOptions options;
  options.ha.etcd_endpoints = "127.0.0.1:2379";
  options.auth_tokens = "/etc/taskboard/tokens.yaml";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--auth-tokens with --ha-etcd-endpoints needs --ha-token")));
  options.ha.token = "replica-secret";
  absl::StatusOr<std::optional<server::HaOptions>> ha = HaFromFlags(options);
  ASSERT_TRUE(ha.ok()) << ha.status();
  EXPECT_EQ((*ha)->token, "replica-secret");
  EXPECT_EQ((*ha)->credentials, nullptr);  // plaintext: no --tls-cert

  options.auth_tokens.clear();
  EXPECT_THAT(
      HaFromFlags(options).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ha-token without --auth-tokens")));

  options.ha.token.clear();
  options.tls.cert = "/etc/taskboard/tls/tls.crt";
  options.tls.key = "/etc/taskboard/tls/tls.key";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-cert with --ha-etcd-endpoints needs --ha-tls-ca")));
  options.ha.tls_ca = "/nonexistent/ca.pem";
  // The replica's own flag, not the CLI's --tls-ca.
  EXPECT_THAT(
      HaFromFlags(options).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               ::testing::AllOf(HasSubstr("--ha-tls-ca /nonexistent/ca.pem: cannot read the file"),
                                ::testing::Not(HasSubstr("--tls-ca")))));

  options.tls = {};
  EXPECT_THAT(HaFromFlags(options).status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      HasSubstr("--ha-tls-ca without --tls-cert")));
}

TEST(HaFromFlags, ReplicaTokenOrCaWithoutEndpoints_NamesThem) {
  SchedulerOptions options;
  options.ha.token = "t";
  options.ha.tls_ca = "ca.pem";
  EXPECT_THAT(HaFromFlags(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--ha-token, --ha-tls-ca need --ha-etcd-endpoints")));
}

}  // namespace
}  // namespace taskboard::process
