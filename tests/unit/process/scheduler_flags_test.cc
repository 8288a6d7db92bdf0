// The scheduler's command line (scheduler/process/scheduler_flags.h):
// defaults, fields, environment variables, --http-tls given or not, and the
// exit codes of what CLI11 refuses.

#include "scheduler/process/scheduler_flags.h"

#include <stdlib.h>

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::process {
namespace {

using ::testing::ElementsAre;

// Parses `args` (after the program name) into `options`.
std::optional<int> Parse(std::vector<std::string> args, SchedulerOptions& options) {
  args.insert(args.begin(), "taskboard-scheduler");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseSchedulerFlags(static_cast<int>(argv.size()), argv.data(), options);
}

TEST(SchedulerFlags, NoArguments_KeepTheDefaults) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({}, options), std::nullopt);
  EXPECT_EQ(options.server.listen_address, "127.0.0.1:7233");
  EXPECT_EQ(options.server.data_dir, "");
  EXPECT_FALSE(options.memory);
  EXPECT_EQ(options.durability, "sync");
  EXPECT_EQ(options.retention, "30d");
  EXPECT_EQ(options.cache_max_ttl, "7d");
  EXPECT_EQ(options.ledger_cache_mb, 256);
  EXPECT_EQ(options.server.keepalive_time_ms, 10'000);
  EXPECT_EQ(options.server.keepalive_timeout_ms, 10'000);
  EXPECT_EQ(options.server.max_request_bytes, 0);
  EXPECT_EQ(options.auth_tokens, "");
  EXPECT_FALSE(options.insecure);
  EXPECT_FALSE(options.http.http_tls_given);
  EXPECT_EQ(options.webhook.attempts, 5);
  EXPECT_EQ(options.log.level, "info");
}

TEST(SchedulerFlags, EveryKindOfFlag_SetsItsField) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--listen=0.0.0.0:0",
                   "--data-dir=/d",
                   "--memory",
                   "--durability=wal",
                   "--port-file=p",
                   "--lease-timeout-ms=1234",
                   "--llm-limits=l.yaml",
                   "--retention=12h",
                   "--cache-max-ttl=90m",
                   "--ledger-cache-mb=3",
                   "--keepalive-time-ms=2000",
                   "--default-agent=a",
                   "--max-spec-bytes=77",
                   "--max-items-per-phase=9",
                   "--approval-max-form-fields=4",
                   "--saved-flow-max-versions=2",
                   "--http-listen=127.0.0.1:0",
                   "--metrics-listen=127.0.0.1:0",
                   "--max-request-bytes=99",
                   "--auth-tokens=t.yaml",
                   "--insecure",
                   "--tls-cert=c",
                   "--tls-key=k",
                   "--tls-client-ca=ca",
                   "--approval-webhook=https://hooks.example/x",
                   "--approval-webhook-allow=https://a/,https://b/",
                   "--log-level=debug"},
                  options),
            std::nullopt);
  EXPECT_EQ(options.server.listen_address, "0.0.0.0:0");
  EXPECT_EQ(options.server.data_dir, "/d");
  EXPECT_TRUE(options.memory);
  EXPECT_EQ(options.durability, "wal");
  EXPECT_EQ(options.port_file, "p");
  EXPECT_EQ(options.server.engine.lease_timeout_ms, 1234);
  EXPECT_EQ(options.llm_limits, "l.yaml");
  EXPECT_EQ(options.retention, "12h");
  EXPECT_EQ(options.cache_max_ttl, "90m");
  EXPECT_EQ(options.ledger_cache_mb, 3);
  EXPECT_EQ(options.server.keepalive_time_ms, 2000);
  EXPECT_EQ(options.server.engine.default_agent, "a");
  EXPECT_EQ(options.server.limits.max_spec_bytes, 77);
  EXPECT_EQ(options.server.engine.limits.max_items_per_phase, 9);
  EXPECT_EQ(options.server.engine.approval_limits.max_form_fields, 4);
  EXPECT_EQ(options.server.saved_flows.max_versions, 2);
  EXPECT_EQ(options.http.http_listen, "127.0.0.1:0");
  EXPECT_EQ(options.http.metrics_listen, "127.0.0.1:0");
  EXPECT_EQ(options.server.max_request_bytes, 99);
  EXPECT_EQ(options.auth_tokens, "t.yaml");
  EXPECT_TRUE(options.insecure);
  EXPECT_EQ(options.tls.cert, "c");
  EXPECT_EQ(options.tls.key, "k");
  EXPECT_EQ(options.tls.client_ca, "ca");
  EXPECT_EQ(options.webhook.url, "https://hooks.example/x");
  EXPECT_THAT(options.webhook.allow, ElementsAre("https://a/", "https://b/"));
  EXPECT_EQ(options.log.level, "debug");
}

TEST(SchedulerFlags, EnvironmentVariable_SetsTheFlag) {
  setenv("TASKBOARD_LISTEN", "127.0.0.1:9", 1);
  setenv("TASKBOARD_MEMORY", "1", 1);
  SchedulerOptions options;
  const std::optional<int> exit_code = Parse({}, options);
  unsetenv("TASKBOARD_LISTEN");
  unsetenv("TASKBOARD_MEMORY");
  EXPECT_EQ(exit_code, std::nullopt);
  EXPECT_EQ(options.server.listen_address, "127.0.0.1:9");
  EXPECT_TRUE(options.memory);
}

// Without --http-tls the HTTP port follows --tls-cert; --http-tls=false is
// an answer too (scheduler/web/http_flags.h).
TEST(SchedulerFlags, HttpTlsFalse_CountsAsGiven) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--http-tls=false"}, options), std::nullopt);
  EXPECT_TRUE(options.http.http_tls_given);
  EXPECT_FALSE(options.http.http_tls);
}

TEST(SchedulerFlags, HttpTlsFromTheEnvironment_CountsAsGiven) {
  setenv("TASKBOARD_HTTP_TLS", "true", 1);
  SchedulerOptions options;
  const std::optional<int> exit_code = Parse({}, options);
  unsetenv("TASKBOARD_HTTP_TLS");
  EXPECT_EQ(exit_code, std::nullopt);
  EXPECT_TRUE(options.http.http_tls_given);
  EXPECT_TRUE(options.http.http_tls);
}

TEST(SchedulerFlags, DurabilityNotAChoice_ExitsTwo) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--durability", "fast"}, options), 2);
}

TEST(SchedulerFlags, CacheMaxTtlZero_ExitsTwoButRetentionZeroKeepsForever) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--cache-max-ttl", "0"}, options), 2);
  SchedulerOptions keep_forever;
  EXPECT_EQ(Parse({"--retention", "0"}, keep_forever), std::nullopt);
  EXPECT_EQ(keep_forever.retention, "0");
}

TEST(SchedulerFlags, DurationWithoutAUnit_ExitsTwo) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--retention", "soon"}, options), 2);
}

TEST(SchedulerFlags, ValueOutOfRangeOrUnknownFlag_ExitsTwo) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--max-event-bytes", "1023"}, options), 2);
  EXPECT_EQ(Parse({"--keepalive-time-ms", "999"}, options), 2);
  EXPECT_EQ(Parse({"--approval-webhook-attempts", "0"}, options), 2);
  EXPECT_EQ(Parse({"--no-such-flag"}, options), 2);
}

TEST(SchedulerFlags, HaFlags_SetTheirFieldsAndDefaults) {
  SchedulerOptions defaults;
  EXPECT_EQ(Parse({}, defaults), std::nullopt);
  EXPECT_EQ(defaults.ha.etcd_endpoints, "");
  EXPECT_EQ(defaults.ha.cluster, "taskboard");
  EXPECT_EQ(defaults.ha.lease_ttl, "3s");
  EXPECT_EQ(defaults.ha.sync_replicas, 1);
  EXPECT_EQ(defaults.ha.sync_timeout, "1s");
  EXPECT_EQ(defaults.ha.etcd_prefix, "/taskboard");

  SchedulerOptions options;
  EXPECT_EQ(Parse({"--ha-etcd-endpoints=a:2379,b:2379", "--ha-cluster=c", "--ha-replica-id=r1",
                   "--ha-advertise=r1:7233", "--ha-advertise-http=r1:8080", "--ha-lease-ttl=2s",
                   "--ha-sync-replicas=2", "--ha-sync-timeout=500ms", "--ha-etcd-prefix=/p"},
                  options),
            std::nullopt);
  EXPECT_EQ(options.ha.etcd_endpoints, "a:2379,b:2379");
  EXPECT_EQ(options.ha.cluster, "c");
  EXPECT_EQ(options.ha.replica_id, "r1");
  EXPECT_EQ(options.ha.advertise, "r1:7233");
  EXPECT_EQ(options.ha.advertise_http, "r1:8080");
  EXPECT_EQ(options.ha.lease_ttl, "2s");
  EXPECT_EQ(options.ha.sync_replicas, 2);
  EXPECT_EQ(options.ha.sync_timeout, "500ms");
  EXPECT_EQ(options.ha.etcd_prefix, "/p");

  EXPECT_EQ(Parse({"--ha-lease-ttl=0"}, options), 2);
  EXPECT_EQ(Parse({"--ha-sync-replicas=0"}, options), 2);
  EXPECT_EQ(Parse({"--ha-sync-timeout=0"}, options), 2);
}

TEST(SchedulerFlags, HaEnvironment_SetsTheEndpoints) {
  ASSERT_EQ(setenv("TASKBOARD_HA_ETCD_ENDPOINTS", "e:2379", 1), 0);
  SchedulerOptions options;
  EXPECT_EQ(Parse({}, options), std::nullopt);
  unsetenv("TASKBOARD_HA_ETCD_ENDPOINTS");
  EXPECT_EQ(options.ha.etcd_endpoints, "e:2379");
}

TEST(SchedulerFlags, Help_ListsTheHaFlags) {
  SchedulerOptions options;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Parse({"--help"}, options), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  for (const char* flag :
       {"--ha-etcd-endpoints", "--ha-cluster", "--ha-replica-id", "--ha-advertise",
        "--ha-advertise-http", "--ha-lease-ttl", "--ha-sync-replicas", "--ha-sync-timeout",
        "--ha-etcd-prefix", "TASKBOARD_HA_ETCD_ENDPOINTS"}) {
    EXPECT_THAT(help, ::testing::HasSubstr(flag));
  }
}

TEST(SchedulerFlags, TraceUrlTemplate_IsReadAndListedInHelp) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--trace-url-template", "https://tempo.example/trace/{trace_id}"}, options),
            std::nullopt);
  EXPECT_EQ(options.http.trace_url_template, "https://tempo.example/trace/{trace_id}");
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Parse({"--help"}, options), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(help, ::testing::HasSubstr("--trace-url-template"));
  EXPECT_THAT(help, ::testing::HasSubstr("TASKBOARD_TRACE_URL_TEMPLATE"));
}

TEST(SchedulerFlags, VersionAndHelp_ExitZero) {
  SchedulerOptions options;
  EXPECT_EQ(Parse({"--version"}, options), 0);
  EXPECT_EQ(Parse({"--help"}, options), 0);
}

}  // namespace
}  // namespace taskboard::process
