// `taskboard-scheduler`: the scheduler service. Every flag has an
// environment-variable equivalent (TASKBOARD_...), shown by --help.
//
// On SIGTERM / SIGINT it stops accepting, lets open calls finish for up to
// 5 s, commits what the engine holds and closes the store; runs in progress
// continue when a scheduler starts again on the same data directory.
//
// With --metrics-listen it serves /metrics, /healthz and /readyz for
// Prometheus and the kubelet (docs/metrics.md); with --http-listen, the HTTP
// API at /api/v1/ (docs/http-api.md) and the web console (docs/console.md).
//
// Logs are JSON lines on stderr (--log-level, --log-format; docs/services.md#logs).
// Usage errors found before logging starts (bad flags) are plain
// "taskboard-scheduler: ..." lines and exit code 2.
//
// Security (docs/security.md): --auth-tokens requires bearer tokens (the file
// is re-read on SIGHUP), --tls-* serve TLS or mTLS, --max-request-bytes caps
// client requests. A --listen address other machines can reach needs
// --auth-tokens, or --insecure to say the network is trusted.

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/duration_text.h"
#include "common/files.h"
#include "common/json_depth_flag.h"
#include "common/log/grpc_log.h"
#include "common/log/log.h"
#include "common/log/log_flags.h"
#include "common/metrics/metrics_http.h"
#include "common/metrics/registry.h"
#include "common/tls/tls_credentials.h"
#include "scheduler/auth/authenticator.h"
#include "scheduler/auth/listen_exposure.h"
#include "scheduler/engine/approval_limits.h"
#include "scheduler/engine/run_limits.h"
#include "scheduler/engine/saved_flows.h"
#include "scheduler/governance/llm_limits.h"
#include "scheduler/notify/webhook_flags.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/scheduler_server.h"
#include "scheduler/web/api_server.h"
#include "scheduler/web/http_flags.h"

namespace {

// Checks a duration flag's text (common/duration_text.h); with
// `positive`, 0 is refused too.
std::function<std::string(const std::string&)> DurationCheck(bool positive) {
  return [positive](const std::string& text) {
    absl::StatusOr<absl::Duration> parsed = taskboard::ParseDurationText(text);
    if (!parsed.ok()) return std::string(parsed.status().message());
    return !positive || *parsed > absl::ZeroDuration() ? std::string()
                                                       : std::string("must be above 0");
  };
}

// The fan-out limits (scheduler/engine/run_limits.h, docs/security.md#limits).
void AddRunLimitFlags(CLI::App& app, taskboard::engine::RunLimits& limits) {
  namespace flags = taskboard::engine::limit_flags;
  app.add_option(flags::kMaxItemsPerPhase, limits.max_items_per_phase,
                 "Most tasks one map phase fans out to (or branches in one parallel phase)")
      ->envname("TASKBOARD_MAX_ITEMS_PER_PHASE")
      ->capture_default_str();
  app.add_option(flags::kMaxPlanTasks, limits.max_plan_tasks,
                 "Most tasks in one plan (planner, replanner, evaluator); larger plans are invalid")
      ->envname("TASKBOARD_MAX_PLAN_TASKS")
      ->capture_default_str();
  app.add_option(flags::kMaxIterations, limits.max_iterations,
                 "Highest maxIterations a flow may ask for (higher: rejected at submit)")
      ->envname("TASKBOARD_MAX_ITERATIONS")
      ->capture_default_str();
  app.add_option(flags::kMaxInterpolatedBytes, limits.max_interpolated_bytes,
                 "Largest task text after interpolation (larger: the phase fails)")
      ->envname("TASKBOARD_MAX_INTERPOLATED_BYTES")
      ->capture_default_str();
  app.add_option(flags::kMaxToolResultBytes, limits.max_tool_result_bytes,
                 "Largest tool result recorded or cached (larger: recorded as an error)")
      ->envname("TASKBOARD_MAX_TOOL_RESULT_BYTES")
      ->capture_default_str();
  app.add_option(flags::kMaxChildRunsPerRun, limits.max_child_runs_per_run,
                 "Most child runs one run may start (nested patterns)")
      ->envname("TASKBOARD_MAX_CHILD_RUNS_PER_RUN")
      ->capture_default_str();
  app.add_option(flags::kMaxEventBytes, limits.max_event_bytes,
                 "Largest run event; longer texts in it are cut with a marker")
      ->envname("TASKBOARD_MAX_EVENT_BYTES")
      ->check(CLI::Range(int64_t{1024}, int64_t{INT32_MAX}))
      ->capture_default_str();
}

// What a person's decision may carry (docs/approvals.md#limits).
void AddApprovalLimitFlags(CLI::App& app, taskboard::engine::ApprovalLimits& limits) {
  namespace approval = taskboard::engine::approval_limit_flags;
  app.add_option(approval::kMaxCommentBytes, limits.max_comment_bytes,
                 "Largest comment of an approval decision (larger: INVALID_ARGUMENT)")
      ->envname("TASKBOARD_APPROVAL_MAX_COMMENT_BYTES")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option(approval::kMaxFormValueBytes, limits.max_form_value_bytes,
                 "Largest form value of an approval decision (larger: INVALID_ARGUMENT)")
      ->envname("TASKBOARD_APPROVAL_MAX_FORM_VALUE_BYTES")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option(approval::kMaxFormFields, limits.max_form_fields,
                 "Most fields in one approval's form, and values in one decision")
      ->envname("TASKBOARD_APPROVAL_MAX_FORM_FIELDS")
      ->check(CLI::Range(0, 10'000))
      ->capture_default_str();
}

// What a tenant's saved flows may hold (docs/services.md#saved-flows).
void AddSavedFlowLimitFlags(CLI::App& app, taskboard::engine::SavedFlowLimits& limits) {
  namespace saved = taskboard::engine::saved_flow_flags;
  app.add_option(saved::kMaxVersions, limits.max_versions,
                 "Versions kept per saved flow; saving one more deletes the oldest")
      ->envname("TASKBOARD_SAVED_FLOW_MAX_VERSIONS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option(saved::kMaxPerTenant, limits.max_flows_per_tenant,
                 "Saved flows (names) one tenant may have (more: RESOURCE_EXHAUSTED)")
      ->envname("TASKBOARD_SAVED_FLOWS_MAX_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{100'000'000}))
      ->capture_default_str();
  app.add_option(saved::kMaxBytesPerTenant, limits.max_bytes_per_tenant,
                 "Bytes of saved flow versions one tenant may store (more: RESOURCE_EXHAUSTED)")
      ->envname("TASKBOARD_SAVED_FLOWS_MAX_BYTES_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
}

// The approval webhook (docs/approvals.md#notify).
void AddApprovalWebhookFlags(CLI::App& app, taskboard::notify::WebhookFlags& flags) {
  app.add_option("--approval-webhook", flags.url,
                 "POST every approval's events (approval.waiting, approval.decided) to this "
                 "http(s) URL; empty: only the flows' own approvalWebhook")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK");
  app.add_option("--approval-webhook-secret-file", flags.secret_file,
                 "Sign approval webhook requests (X-Taskboard-Signature, HMAC-SHA256) with the "
                 "key in this file (trailing newlines dropped); empty: unsigned")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_SECRET_FILE");
  app.add_option("--approval-webhook-allow", flags.allow,
                 "URL prefixes (comma-separated) a flow's own approvalWebhook may start with; "
                 "empty: flows may name none")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_ALLOW")
      ->delimiter(',');
  app.add_option("--approval-webhook-attempts", flags.attempts,
                 "Attempts per approval webhook delivery (retried after connection errors, "
                 "timeouts, 5xx and 429, waiting 1 s doubling up to 60 s)")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_ATTEMPTS")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--approval-webhook-queue", flags.queue,
                 "Approval webhook deliveries held (new and retrying); when full the oldest is "
                 "dropped")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_QUEUE")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}))
      ->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  namespace log = taskboard::log;  // here: at file scope it would clash with ::log from <cmath>
  taskboard::server::SchedulerServerOptions options;
  std::string cache_max_ttl = "7d";
  std::string retention = "30d";
  std::string durability = "sync";
  std::string port_file;
  bool memory = false;
  taskboard::web::HttpFlags http_flags;
  log::LogFlags log_flags;
  std::string auth_tokens;
  bool insecure = false;
  std::string llm_limits;
  taskboard::tls::ServerTlsFlags tls_flags;
  taskboard::notify::WebhookFlags webhook_flags;

  CLI::App app{"taskboard-scheduler: owns Taskboard runs, their tasks and their durable state"};
  app.set_version_flag("--version", "taskboard-scheduler 0.1.0");
  app.add_option("--listen", options.listen_address, "gRPC address host:port (port 0: any free)")
      ->envname("TASKBOARD_LISTEN")
      ->capture_default_str();
  app.add_option("--data-dir", options.data_dir, "RocksDB directory for all durable state")
      ->envname("TASKBOARD_DATA_DIR");
  app.add_flag("--memory", memory, "Keep state in memory only (tests, benchmarks): lost on exit")
      ->envname("TASKBOARD_MEMORY");
  app.add_option("--durability", durability,
                 "sync: fsync every commit; wal: survive process crashes, not power loss; "
                 "none: no write-ahead log (benchmarks)")
      ->envname("TASKBOARD_DURABILITY")
      ->check(CLI::IsMember({"sync", "wal", "none"}))
      ->capture_default_str();
  app.add_option("--port-file", port_file, "Write the bound port here once serving")
      ->envname("TASKBOARD_PORT_FILE");
  app.add_option("--lease-timeout-ms", options.engine.lease_timeout_ms,
                 "A worker silent this long loses its tasks to other workers")
      ->envname("TASKBOARD_LEASE_TIMEOUT_MS")
      ->capture_default_str();
  app.add_option("--llm-limits", llm_limits,
                 "LLM governance: per-model rpm/tpm/concurrency limits, prices and tenant "
                 "budgets (YAML; docs/llm-governance.md), re-read on SIGHUP; empty: calls are "
                 "granted at once and billed at the agent files' prices")
      ->envname("TASKBOARD_LLM_LIMITS");
  app.add_option("--retention", retention,
                 "Delete finished runs this long after they finished, with their events, tasks, "
                 "ledger and run-scoped cache entries (30d, 12h, 90m; 0: keep forever)")
      ->envname("TASKBOARD_RETENTION")
      ->check(DurationCheck(/*positive=*/false))
      ->capture_default_str();
  app.add_option("--cache-max-ttl", cache_max_ttl,
                 "No tool-cache entry lives longer, whatever its tool or flow declares (7d, 12h)")
      ->envname("TASKBOARD_CACHE_MAX_TTL")
      ->check(DurationCheck(/*positive=*/true))
      ->capture_default_str();
  app.add_option("--cache-max-entries-per-tenant",
                 options.engine.cache_limits.max_entries_per_tenant,
                 "Tool-cache entries one tenant may hold in all its scopes; past it the oldest "
                 "are evicted")
      ->envname("TASKBOARD_CACHE_MAX_ENTRIES_PER_TENANT")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}))
      ->capture_default_str();
  int64_t ledger_cache_mb = taskboard::engine::LedgerBook::kDefaultCacheBytes >> 20;
  app.add_option("--ledger-cache-mb", ledger_cache_mb,
                 "Memory for tool-call observation bodies shared by all active requests; the "
                 "ledgers keep only their indexes in memory and read older calls from the store "
                 "(0: read every selected call from the store)")
      ->envname("TASKBOARD_LEDGER_CACHE_MB")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--keepalive-time-ms", options.keepalive_time_ms,
                 "Ping a connection (worker, client) after this much silence; one that does not "
                 "answer within --keepalive-timeout-ms is closed and its worker unregistered")
      ->envname("TASKBOARD_KEEPALIVE_TIME_MS")
      ->check(CLI::Range(int64_t{1'000}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--keepalive-timeout-ms", options.keepalive_timeout_ms,
                 "How long a keepalive ping may go unanswered")
      ->envname("TASKBOARD_KEEPALIVE_TIMEOUT_MS")
      ->check(CLI::Range(int64_t{100}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--heartbeat-interval-ms", options.engine.heartbeat_interval_ms,
                 "How often workers heartbeat (sent to them on connect)")
      ->envname("TASKBOARD_HEARTBEAT_INTERVAL_MS")
      ->capture_default_str();
  app.add_option("--scheduling-timeout-ms", options.engine.scheduling_timeout_ms,
                 "A ready task whose agent no connected worker offers fails after this")
      ->envname("TASKBOARD_SCHEDULING_TIMEOUT_MS")
      ->capture_default_str();
  app.add_option("--default-agent", options.engine.default_agent,
                 "Agent for whatever a flow leaves without one (phases, branches, board tasks, "
                 "pattern roles); empty: the first registered agent of the connected workers. "
                 "Submit fails at once when no connected worker offers it")
      ->envname("TASKBOARD_DEFAULT_AGENT");
  app.add_option("--retry-base-ms", options.engine.retry_backoff.base_ms,
                 "First retry delay; doubles per failure, with jitter")
      ->envname("TASKBOARD_RETRY_BASE_MS")
      ->capture_default_str();
  app.add_option("--retry-max-ms", options.engine.retry_backoff.max_ms, "Retry delay cap")
      ->envname("TASKBOARD_RETRY_MAX_MS")
      ->capture_default_str();
  app.add_option("--max-output-bytes", options.engine.max_output_bytes,
                 "Largest task output accepted")
      ->envname("TASKBOARD_MAX_OUTPUT_BYTES")
      ->capture_default_str();
  app.add_option("--max-spec-bytes", options.limits.max_spec_bytes, "Largest flow accepted")
      ->envname("TASKBOARD_MAX_SPEC_BYTES")
      ->capture_default_str();
  app.add_option("--max-args-bytes", options.limits.max_args_bytes, "Largest run args accepted")
      ->envname("TASKBOARD_MAX_ARGS_BYTES")
      ->capture_default_str();
  app.add_option("--max-tasks-per-run", options.limits.max_tasks_per_run,
                 "Most tasks (board) or phases (taskflow) in one run")
      ->envname("TASKBOARD_MAX_TASKS_PER_RUN")
      ->capture_default_str();
  AddRunLimitFlags(app, options.engine.limits);
  AddApprovalLimitFlags(app, options.engine.approval_limits);
  AddSavedFlowLimitFlags(app, options.saved_flows);
  taskboard::web::AddHttpFlags(app, http_flags);
  app.add_option("--max-request-bytes", options.max_request_bytes,
                 "Largest client request accepted (RESOURCE_EXHAUSTED above); 0: no limit")
      ->envname("TASKBOARD_MAX_REQUEST_BYTES")
      ->capture_default_str();
  app.add_option("--auth-tokens", auth_tokens,
                 "Tokens file (YAML or JSON): every call needs a bearer token listed there, "
                 "re-read on SIGHUP (docs/security.md); empty: no authentication")
      ->envname("TASKBOARD_AUTH_TOKENS");
  app.add_flag("--insecure", insecure,
               "Allow a --listen address other machines can reach without --auth-tokens "
               "(a trusted network only; logs a warning)")
      ->envname("TASKBOARD_INSECURE");
  app.add_option("--tls-cert", tls_flags.cert, "Serve TLS with this certificate chain (PEM)")
      ->envname("TASKBOARD_TLS_CERT");
  app.add_option("--tls-key", tls_flags.key, "The private key of --tls-cert (PEM)")
      ->envname("TASKBOARD_TLS_KEY");
  app.add_option("--tls-client-ca", tls_flags.client_ca,
                 "Require client certificates signed by this CA (mTLS; PEM)")
      ->envname("TASKBOARD_TLS_CLIENT_CA");
  AddApprovalWebhookFlags(app, webhook_flags);
  log::AddLogFlags(app, &log_flags);
  taskboard::AddJsonDepthFlag(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (absl::Status logging = log::ConfigureFromFlags(log_flags, "scheduler"); !logging.ok()) {
    std::cerr << "taskboard-scheduler: " << logging.message() << "\n";
    return 2;
  }
  log::RouteGrpcLogs();
  absl::StatusOr<taskboard::auth::Exposure> exposure =
      taskboard::auth::CheckListenExposure(options.listen_address, !auth_tokens.empty(), insecure);
  if (!exposure.ok()) {
    std::cerr << "taskboard-scheduler: " << exposure.status().message() << "\n";
    return 2;
  }
  if (*exposure == taskboard::auth::Exposure::kInsecure) {
    log::Warn("--insecure: serving without authentication on an address other machines can reach")
        .With("listen", options.listen_address);
  }
  if (memory) {
    options.data_dir.clear();
  } else if (options.data_dir.empty()) {
    options.data_dir = "taskboard-data";
  }
  options.durability = *taskboard::store::ParseDurability(durability);
  // Both checked above.
  options.engine.retention_ms = absl::ToInt64Milliseconds(*taskboard::ParseDurationText(retention));
  options.engine.cache_limits.max_ttl_ms =
      absl::ToInt64Milliseconds(*taskboard::ParseDurationText(cache_max_ttl));
  options.engine.ledger_cache_bytes = ledger_cache_mb << 20;
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      taskboard::tls::ServerCredentials(tls_flags);
  if (!credentials.ok()) {
    std::cerr << "taskboard-scheduler: " << credentials.status().message() << "\n";
    return 2;
  }
  options.credentials = *std::move(credentials);
  std::unique_ptr<taskboard::auth::Authenticator> authenticator;
  if (!auth_tokens.empty()) {
    absl::StatusOr<std::unique_ptr<taskboard::auth::Authenticator>> loaded =
        taskboard::auth::Authenticator::FromFile(auth_tokens);
    if (!loaded.ok()) {
      std::cerr << "taskboard-scheduler: " << loaded.status().message() << "\n";
      return 2;
    }
    authenticator = *std::move(loaded);
    options.authenticator = authenticator.get();
  }
  if (!llm_limits.empty()) {
    absl::StatusOr<taskboard::governance::LlmLimits> loaded =
        taskboard::governance::LoadLlmLimitsFile(llm_limits);
    if (!loaded.ok()) {
      std::cerr << "taskboard-scheduler: --llm-limits " << loaded.status().message() << "\n";
      return 2;
    }
    options.engine.llm_limits = *std::move(loaded);
  }
  if (absl::Status webhook = taskboard::notify::ApplyWebhookFlags(
          webhook_flags, options.approval_webhook, options.limits.approval_webhook_allow);
      !webhook.ok()) {
    std::cerr << "taskboard-scheduler: " << webhook.message() << "\n";
    return 2;
  }
  taskboard::metrics::MetricsHttpOptions metrics_options;
  if (absl::Status flags = taskboard::metrics::CheckMetricsFlags(
          http_flags.metrics_listen, http_flags.metrics_port_file, metrics_options);
      !flags.ok()) {
    std::cerr << "taskboard-scheduler: " << flags.message() << "\n";
    return 2;
  }
  std::optional<taskboard::web::ApiServerOptions> api_options;
  if (!http_flags.http_listen.empty()) {
    absl::StatusOr<taskboard::web::ApiServerOptions> parsed =
        taskboard::web::ApiServerOptionsFromFlags(http_flags, {.tls_cert_file = tls_flags.cert,
                                                               .tls_key_file = tls_flags.key,
                                                               .auth_tokens = !auth_tokens.empty(),
                                                               .insecure = insecure});
    if (!parsed.ok()) {
      std::cerr << "taskboard-scheduler: " << parsed.status().message() << "\n";
      return 2;
    }
    api_options = *std::move(parsed);
  } else if (!http_flags.http_port_file.empty() || !http_flags.console_token_file.empty() ||
             http_flags.http_tls_option->count() > 0) {
    std::cerr << "taskboard-scheduler: --http-port-file, --http-tls and "
                 "--http-console-token-file need --http-listen\n";
    return 2;
  }
  // Metrics are kept even without --metrics-listen: the hooks are cheap and
  // the code path stays the same.
  taskboard::metrics::Registry registry;
  options.metrics_registry = &registry;

  // Block the shutdown signals in every thread; main waits for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);  // re-read --auth-tokens and --llm-limits
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<taskboard::server::SchedulerServer>> server =
      taskboard::server::SchedulerServer::Create(options);
  if (!server.ok()) {
    log::Fatal("scheduler cannot start").With("error", server.status().message());
    return 1;
  }
  int port = (*server)->port();
  log::Info("scheduler serving")
      .With("port", port)
      .With("listen", options.listen_address)
      .With("data_dir", options.data_dir.empty() ? "memory" : options.data_dir)
      .With("durability", durability)
      .With("auth", authenticator != nullptr ? "tokens" : "off")
      .With("tls", options.credentials == nullptr ? "off"
                   : tls_flags.client_ca.empty()  ? "tls"
                                                  : "mtls");
  // Before the gRPC port file: whoever waits for that one finds these too.
  taskboard::server::SchedulerServer* serving = server->get();
  std::unique_ptr<taskboard::metrics::MetricsHttpServer> metrics_http;
  if (!http_flags.metrics_listen.empty()) {
    metrics_options.readiness = [serving] { return serving->Readiness(); };
    absl::StatusOr<std::unique_ptr<taskboard::metrics::MetricsHttpServer>> started =
        taskboard::metrics::ServeMetrics(&registry, std::move(metrics_options),
                                         http_flags.metrics_port_file);
    if (!started.ok()) {
      log::Fatal("cannot serve metrics")
          .With("listen", http_flags.metrics_listen)
          .With("error", started.status().message());
      return 1;
    }
    metrics_http = *std::move(started);
    log::Info("serving metrics")
        .With("port", metrics_http->port())
        .With("listen", http_flags.metrics_listen);
  }
  std::unique_ptr<taskboard::web::ApiServer> http_api;
  if (api_options.has_value()) {
    if (!api_options->api.refused.ok()) {
      log::Warn("HTTP API off").With("reason", api_options->api.refused.message());
    }
    api_options->readiness = [serving] { return serving->Readiness(); };
    taskboard::auth::Authenticator* tokens = authenticator.get();
    api_options->api.stream_tenant =
        [tokens](absl::string_view authorization) -> absl::StatusOr<std::string> {
      if (tokens == nullptr) return std::string();
      absl::StatusOr<taskboard::auth::Principal> principal =
          tokens->Admit(authorization, taskboard::server::SchedulerMethod("WatchRun"));
      if (!principal.ok()) return principal.status();
      return principal->tenant;
    };
    absl::StatusOr<std::unique_ptr<taskboard::web::ApiServer>> started =
        taskboard::web::ApiServer::Start(*std::move(api_options), (*server)->InProcessChannel());
    if (!started.ok()) {
      log::Fatal("cannot serve the HTTP API")
          .With("listen", http_flags.http_listen)
          .With("error", started.status().message());
      return 1;
    }
    http_api = *std::move(started);
    if (!http_flags.http_port_file.empty() &&
        !taskboard::WriteFileAtomically(http_flags.http_port_file,
                                        absl::StrCat(http_api->port(), "\n"))) {
      log::Fatal(
          "cannot write the HTTP port file; check that its directory exists and is "
          "writable")
          .With("port_file", http_flags.http_port_file);
      return 1;
    }
    log::Info("serving the HTTP API and console")
        .With("port", http_api->port())
        .With("listen", http_flags.http_listen);
  }
  if (!port_file.empty() &&
      !taskboard::WriteFileAtomically(port_file, std::to_string(port) + "\n")) {
    log::Fatal("cannot write the port file; check that its directory exists and is writable")
        .With("port_file", port_file);
    return 1;
  }
  int received = 0;
  while (sigwait(&signals, &received) == 0 && received == SIGHUP) {
    if (!llm_limits.empty()) {
      absl::StatusOr<taskboard::governance::LlmLimits> loaded =
          taskboard::governance::LoadLlmLimitsFile(llm_limits);
      if (loaded.ok()) {
        (*server)->engine().SetLlmLimits(*std::move(loaded));
      } else {
        log::Error("llm limits not re-read; the previous limits stay in force")
            .With("error", loaded.status().message());
      }
    }
    if (authenticator == nullptr) {
      if (llm_limits.empty())
        log::Info("SIGHUP ignored: no --auth-tokens or --llm-limits to re-read");
      continue;
    }
    absl::StatusOr<size_t> reloaded = authenticator->Reload();
    if (reloaded.ok()) {
      const int closed = (*server)->CloseRevokedStreams();
      log::Info("tokens file re-read")
          .With("tokens", static_cast<int64_t>(*reloaded))
          .With("closed_streams", closed);
    } else {
      log::Error("tokens file not re-read; the previous tokens stay in force")
          .With("error", reloaded.status().message());
    }
  }
  log::Info("scheduler shutting down").With("signal", received);
  // The HTTP API's open streams and calls first, so they end before the
  // gRPC server they call stops.
  if (http_api != nullptr) http_api->Shutdown();
  if (metrics_http != nullptr) metrics_http->Shutdown();
  (*server)->Shutdown();
  log::Info("scheduler stopped");
  return 0;
}
