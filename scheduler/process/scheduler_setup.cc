#include "scheduler/process/scheduler_setup.h"

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/duration_text.h"
#include "common/log/grpc_log.h"
#include "common/log/log.h"
#include "common/otel/tracing_environment.h"
#include "common/tls/tls_credentials.h"
#include "scheduler/auth/listen_exposure.h"
#include "scheduler/governance/llm_limits.h"
#include "scheduler/notify/webhook_flags.h"
#include "scheduler/store/store.h"
#include "scheduler/web/http_flags.h"

namespace taskboard::process {

absl::StatusOr<SchedulerSetup> PrepareScheduler(const SchedulerOptions& options) {
  if (absl::Status logging = log::ConfigureFromFlags(options.log, "scheduler"); !logging.ok()) {
    return logging;
  }
  log::RouteGrpcLogs();
  return ResolveSchedulerSetup(options);
}

absl::Status ApplyStoreFlags(const SchedulerOptions& options, server::SchedulerServerOptions& out) {
  if (options.memory) {
    out.data_dir.clear();
  } else if (out.data_dir.empty()) {
    out.data_dir = "taskboard-data";
  }
  absl::StatusOr<store::Durability> durability = store::ParseDurability(options.durability);
  if (!durability.ok()) return durability.status();
  out.durability = *durability;
  absl::StatusOr<absl::Duration> retention = ParseDurationText(options.retention);
  if (!retention.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--retention: ", retention.status().message()));
  }
  absl::StatusOr<absl::Duration> cache_max_ttl = ParseDurationText(options.cache_max_ttl);
  if (!cache_max_ttl.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cache-max-ttl: ", cache_max_ttl.status().message()));
  }
  absl::StatusOr<absl::Duration> audit_retention = ParseDurationText(options.audit_retention);
  if (!audit_retention.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--audit-retention: ", audit_retention.status().message()));
  }
  out.audit_retention = *audit_retention;
  // All sources together: ten of one (docs/audit.md#refused-calls).
  out.audit_refused.total_per_second = out.audit_refused.per_source_per_second * 10;
  out.audit_refused.total_burst = out.audit_refused.per_source_burst * 10;
  out.engine.retention_ms = absl::ToInt64Milliseconds(*retention);
  out.engine.cache_limits.max_ttl_ms = absl::ToInt64Milliseconds(*cache_max_ttl);
  out.engine.ledger_cache_bytes = options.ledger_cache_mb << 20;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<web::ApiServerOptions>> HttpApiFromFlags(
    const SchedulerOptions& options) {
  const web::HttpFlags& http = options.http;
  if (http.http_listen.empty()) {
    if (!http.http_port_file.empty() || !http.console_token_file.empty() || http.http_tls_given ||
        !http.trace_url_template.empty()) {
      return absl::InvalidArgumentError(
          "--http-port-file, --http-tls, --http-console-token-file and --trace-url-template need "
          "--http-listen");
    }
    return std::nullopt;
  }
  absl::StatusOr<web::ApiServerOptions> parsed =
      web::ApiServerOptionsFromFlags(http, {.tls_cert_file = options.tls.cert,
                                            .tls_key_file = options.tls.key,
                                            .auth_tokens = !options.auth_tokens.empty(),
                                            .insecure = options.insecure});
  if (!parsed.ok()) return parsed.status();
  return *std::move(parsed);
}

namespace {

// This host's name ("localhost" when it has none).
std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

// How a follower reaches its leader's ReplicaService: the replicas share one
// configuration, so a follower speaks TLS when the replicas serve it and
// sends a token when they require one (docs/high-availability.md#securing-replicas).
absl::Status ReplicaTransportFromFlags(const SchedulerOptions& options, server::HaOptions& ha) {
  const HaFlags& flags = options.ha;
  if (!options.auth_tokens.empty() && flags.token.empty()) {
    return absl::InvalidArgumentError(
        "--auth-tokens with --ha-etcd-endpoints needs --ha-token (TASKBOARD_HA_TOKEN): an admin "
        "token of the tokens file, which a follower sends to the leader to replicate its store");
  }
  if (options.auth_tokens.empty() && !flags.token.empty()) {
    return absl::InvalidArgumentError(
        "--ha-token without --auth-tokens: the replicas do not check tokens; give both or "
        "neither");
  }
  const bool serves_tls = !options.tls.cert.empty();
  if (serves_tls && flags.tls_ca.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert with --ha-etcd-endpoints needs --ha-tls-ca (TASKBOARD_HA_TLS_CA): the CA "
        "that signed the replicas' certificates, which a follower checks the leader's against");
  }
  if (!serves_tls && !flags.tls_ca.empty()) {
    return absl::InvalidArgumentError(
        "--ha-tls-ca without --tls-cert: the replicas serve plaintext, so a follower would "
        "speak TLS to a plaintext leader; give both or neither");
  }
  ha.token = flags.token;
  if (!serves_tls) return absl::OkStatus();
  // With mTLS the leader asks every caller for a client certificate; a
  // follower shows its own serving certificate (which must allow client
  // authentication, docs/high-availability.md#securing-replicas).
  const bool mutual = !options.tls.client_ca.empty();
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      tls::ChannelCredentials({.ca = flags.tls_ca,
                               .cert = mutual ? options.tls.cert : std::string(),
                               .key = mutual ? options.tls.key : std::string(),
                               .ca_flag = "--ha-tls-ca"});
  if (!credentials.ok()) return credentials.status();
  ha.credentials = *std::move(credentials);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<server::HaOptions>> HaFromFlags(const SchedulerOptions& options) {
  const HaFlags& flags = options.ha;
  if (flags.etcd_endpoints.empty()) {
    const HaFlags defaults;
    std::vector<std::string> given;
    if (flags.etcd_prefix != defaults.etcd_prefix) given.push_back("--ha-etcd-prefix");
    if (flags.cluster != defaults.cluster) given.push_back("--ha-cluster");
    if (!flags.replica_id.empty()) given.push_back("--ha-replica-id");
    if (!flags.advertise.empty()) given.push_back("--ha-advertise");
    if (!flags.advertise_http.empty()) given.push_back("--ha-advertise-http");
    if (flags.lease_ttl != defaults.lease_ttl) given.push_back("--ha-lease-ttl");
    if (flags.sync_replicas != defaults.sync_replicas) given.push_back("--ha-sync-replicas");
    if (!flags.token.empty()) given.push_back("--ha-token");
    if (!flags.tls_ca.empty()) given.push_back("--ha-tls-ca");
    if (flags.sync_timeout != defaults.sync_timeout) given.push_back("--ha-sync-timeout");
    if (given.empty()) return std::nullopt;
    return absl::InvalidArgumentError(
        absl::StrCat(absl::StrJoin(given, ", "),
                     " need --ha-etcd-endpoints: without it the scheduler is a single replica "
                     "(docs/high-availability.md#running-replicas)"));
  }
  if (options.memory || options.durability == "none") {
    return absl::InvalidArgumentError(
        "--ha-etcd-endpoints cannot be used with --memory or --durability=none: a replica "
        "ships its store's write-ahead log to the others; give a --data-dir and --durability "
        "sync or wal");
  }
  server::HaOptions ha;
  for (absl::string_view endpoint : absl::StrSplit(flags.etcd_endpoints, ',', absl::SkipEmpty())) {
    endpoint = absl::StripAsciiWhitespace(endpoint);
    if (endpoint.empty()) continue;
    if (!absl::StrContains(endpoint, ':') || absl::StrContains(endpoint, "/")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ha-etcd-endpoints: '", endpoint,
                       "' is not host:port (give each etcd member's client address, e.g. "
                       "10.0.0.5:2379, separated by commas)"));
    }
    ha.etcd_endpoints.emplace_back(endpoint);
  }
  if (ha.etcd_endpoints.empty()) {
    return absl::InvalidArgumentError("--ha-etcd-endpoints names no endpoint");
  }
  if (!absl::StartsWith(flags.etcd_prefix, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ha-etcd-prefix '", flags.etcd_prefix, "' must start with '/'"));
  }
  if (flags.cluster.empty() || absl::StrContains(flags.cluster, '/')) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ha-cluster '", flags.cluster, "' must be a non-empty name without '/'"));
  }
  absl::StatusOr<absl::Duration> ttl = ParseDurationText(flags.lease_ttl);
  if (!ttl.ok() || *ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ha-lease-ttl '", flags.lease_ttl, "' is not a positive duration (2s, 3s)"));
  }
  absl::StatusOr<absl::Duration> sync_timeout = ParseDurationText(flags.sync_timeout);
  if (!sync_timeout.ok() || *sync_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("--ha-sync-timeout '", flags.sync_timeout,
                                                   "' is not a positive duration (500ms, 1s)"));
  }
  ha.etcd_prefix = flags.etcd_prefix;
  ha.cluster = flags.cluster;
  ha.replica_id = flags.replica_id.empty() ? HostName() : flags.replica_id;
  ha.advertise = flags.advertise;
  ha.advertise_http = flags.advertise_http;
  ha.lease_ttl = *ttl;
  ha.sync_replicas = flags.sync_replicas;
  absl::Status secured = ReplicaTransportFromFlags(options, ha);
  if (!secured.ok()) return secured;
  ha.sync_timeout = *sync_timeout;
  return ha;
}

absl::StatusOr<SchedulerSetup> ResolveSchedulerSetup(const SchedulerOptions& options) {
  SchedulerSetup setup;
  server::SchedulerServerOptions& server = setup.server;
  server = options.server;
  absl::StatusOr<auth::Exposure> exposure = auth::CheckListenExposure(
      server.listen_address, !options.auth_tokens.empty(), options.insecure);
  if (!exposure.ok()) return exposure.status();
  if (*exposure == auth::Exposure::kInsecure) {
    log::Warn("--insecure: serving without authentication on an address other machines can reach")
        .With("listen", server.listen_address);
  }
  if (absl::Status store = ApplyStoreFlags(options, server); !store.ok()) return store;
  setup.durability = options.durability;

  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      tls::ServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  server.credentials = *std::move(credentials);
  setup.tls_mode = server.credentials == nullptr   ? "off"
                   : options.tls.client_ca.empty() ? "tls"
                                                   : "mtls";
  if (!options.auth_tokens.empty()) {
    absl::StatusOr<std::unique_ptr<auth::Authenticator>> loaded =
        auth::Authenticator::FromFile(options.auth_tokens);
    if (!loaded.ok()) return loaded.status();
    setup.authenticator = *std::move(loaded);
    server.authenticator = setup.authenticator.get();
  }
  setup.llm_limits = options.llm_limits;
  if (!options.llm_limits.empty()) {
    absl::StatusOr<governance::LlmLimits> loaded =
        governance::LoadLlmLimitsFile(options.llm_limits);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat("--llm-limits ", loaded.status().message()));
    }
    server.engine.llm_limits = *std::move(loaded);
  }
  if (absl::Status webhook = notify::ApplyWebhookFlags(options.webhook, server.approval_webhook,
                                                       server.limits.approval_webhook_allow);
      !webhook.ok()) {
    return webhook;
  }

  const web::HttpFlags& http = options.http;
  if (absl::Status flags = metrics::CheckMetricsFlags(http.metrics_listen, http.metrics_port_file,
                                                      setup.metrics_http);
      !flags.ok()) {
    return flags;
  }
  setup.metrics_listen = http.metrics_listen;
  setup.metrics_port_file = http.metrics_port_file;
  absl::StatusOr<std::optional<web::ApiServerOptions>> http_api = HttpApiFromFlags(options);
  if (!http_api.ok()) return http_api.status();
  setup.http_api = *std::move(http_api);
  setup.http_listen = http.http_listen;
  setup.http_port_file = http.http_port_file;
  setup.port_file = options.port_file;
  absl::StatusOr<std::optional<server::HaOptions>> ha = HaFromFlags(options);
  if (!ha.ok()) return ha.status();
  server.ha = *std::move(ha);
  absl::StatusOr<otel::TracingOptions> tracing = TracingFromFlags(options);
  if (!tracing.ok()) return tracing.status();
  setup.tracing = *std::move(tracing);
  return setup;
}

absl::StatusOr<otel::TracingOptions> TracingFromFlags(const SchedulerOptions& options) {
  otel::ServiceTracingFlags flags{.otlp_endpoint = options.otlp_endpoint};
  if (!options.trace_sample_ratio.empty()) {
    double ratio = 0;
    if (!absl::SimpleAtod(options.trace_sample_ratio, &ratio)) {
      return absl::InvalidArgumentError(absl::StrCat("--trace-sample-ratio: '",
                                                     options.trace_sample_ratio,
                                                     "' is not a number; give a ratio in [0, 1]"));
    }
    flags.sample_ratio = ratio;
  }
  absl::StatusOr<otel::TracingEnvironment> environment =
      otel::TracingForService(otel::ProcessEnvironment(), "taskboard-scheduler", flags);
  if (!environment.ok()) return environment.status();
  for (const std::string& warning : environment->warnings) {
    log::Warn("ignored an OpenTelemetry variable").With("warning", warning);
  }
  return environment->options;
}

}  // namespace taskboard::process
