#ifndef TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_SETUP_H_
#define TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_SETUP_H_

// From a `taskboard-scheduler` command line to what the scheduler runs with:
// logging configured, every flag that needs more than CLI11's check checked,
// and the files the flags name read (the tokens, the LLM limits, the webhook
// secret, the TLS keys, the console token). Nothing here starts a thread or
// opens the store, and each error is a usage error: the caller prints it as
// "taskboard-scheduler: <message>" and exits 2.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/metrics/metrics_http.h"
#include "common/otel/tracing_options.h"
#include "scheduler/auth/authenticator.h"
#include "scheduler/process/scheduler_options.h"
#include "scheduler/server/scheduler_server.h"
#include "scheduler/web/api_server.h"

namespace taskboard::process {

struct SchedulerSetup {
  // All but `metrics_registry`, which SchedulerProcess owns; `authenticator`
  // points at the one below.
  server::SchedulerServerOptions server;
  std::unique_ptr<auth::Authenticator> authenticator;  // null: --auth-tokens off
  std::string llm_limits;  // the --llm-limits file, re-read on SIGHUP; empty: none
  std::string port_file;   // --port-file; empty: none
  // For the start-up line: --durability as given, and "off", "tls" or "mtls".
  std::string durability;
  std::string tls_mode;
  // --metrics-listen (empty: no metrics port) as HOST and PORT, and
  // --metrics-port-file.
  std::string metrics_listen;
  metrics::MetricsHttpOptions metrics_http;
  std::string metrics_port_file;
  // --http-listen: the HTTP API's options, without the readiness and tenant
  // lookups the running server provides; none without the flag.
  std::string http_listen;
  std::optional<web::ApiServerOptions> http_api;
  std::string http_port_file;
  // The OTEL_* environment with --otlp-endpoint and --trace-sample-ratio
  // (TracingFromFlags); off without an endpoint.
  otel::TracingOptions tracing;
};

// Logging first (the process-wide logger and gRPC's lines), then
// ResolveSchedulerSetup.
absl::StatusOr<SchedulerSetup> PrepareScheduler(const SchedulerOptions& options);

// In this order, each error naming its flag and what to do: --listen against
// --auth-tokens and --insecure (FAILED_PRECONDITION for a reachable address
// with neither; a warning is logged for --insecure); the store's flags
// (ApplyStoreFlags); the TLS credentials; the tokens file; the --llm-limits
// file; the approval webhook; the metrics flags; the HTTP API's flags
// (HttpApiFromFlags); the --ha-* flags (HaFromFlags).
absl::StatusOr<SchedulerSetup> ResolveSchedulerSetup(const SchedulerOptions& options);

// --memory (no data directory), else --data-dir or ./taskboard-data;
// --durability; --retention, --cache-max-ttl and --ledger-cache-mb into the
// engine's options. INVALID_ARGUMENT for a durability or duration the flags'
// checks would have refused.
absl::Status ApplyStoreFlags(const SchedulerOptions& options, server::SchedulerServerOptions& out);

// The replica's options with --ha-etcd-endpoints; none without it.
// INVALID_ARGUMENT naming the flags: another --ha-* flag without
// --ha-etcd-endpoints; --ha-etcd-endpoints with --memory or
// --durability=none (a replica needs the store's write-ahead log); an
// endpoint that is not host:port, a prefix not starting with '/', a cluster
// name with '/'.
absl::StatusOr<std::optional<server::HaOptions>> HaFromFlags(const SchedulerOptions& options);

// The OTEL_* environment (its unusable values logged as warnings), then
// --otlp-endpoint and --trace-sample-ratio: otel::TracingForService's
// INVALID_ARGUMENT, or one for a ratio that is not a number.
absl::StatusOr<otel::TracingOptions> TracingFromFlags(const SchedulerOptions& options);

// The HTTP API's options with --http-listen; none without it.
// INVALID_ARGUMENT when --http-port-file, --http-tls or
// --http-console-token-file is given without --http-listen, and the errors
// of web::ApiServerOptionsFromFlags.
absl::StatusOr<std::optional<web::ApiServerOptions>> HttpApiFromFlags(
    const SchedulerOptions& options);

}  // namespace taskboard::process

#endif  // TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_SETUP_H_
