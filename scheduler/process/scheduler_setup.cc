#include "scheduler/process/scheduler_setup.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/duration_text.h"
#include "common/log/grpc_log.h"
#include "common/log/log.h"
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
  out.engine.retention_ms = absl::ToInt64Milliseconds(*retention);
  out.engine.cache_limits.max_ttl_ms = absl::ToInt64Milliseconds(*cache_max_ttl);
  out.engine.ledger_cache_bytes = options.ledger_cache_mb << 20;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<web::ApiServerOptions>> HttpApiFromFlags(
    const SchedulerOptions& options) {
  const web::HttpFlags& http = options.http;
  if (http.http_listen.empty()) {
    if (!http.http_port_file.empty() || !http.console_token_file.empty() || http.http_tls_given) {
      return absl::InvalidArgumentError(
          "--http-port-file, --http-tls and --http-console-token-file need --http-listen");
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
  return setup;
}

}  // namespace taskboard::process
