#ifndef TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_OPTIONS_H_
#define TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_OPTIONS_H_

// What a `taskboard-scheduler` is told on its command line (scheduler_flags.h
// declares the flags, their TASKBOARD_* variables and help texts). Most flags
// set a field of `server` directly, whose defaults are the flags' defaults;
// the rest are kept here as given, in text where the flag takes text, and
// PrepareScheduler (scheduler_setup.h) checks and turns them into what the
// scheduler runs with.

#include <cstdint>
#include <string>

#include "common/log/log_flags.h"
#include "common/tls/tls_credentials.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/notify/webhook_flags.h"
#include "scheduler/server/scheduler_server.h"
#include "scheduler/web/http_flags.h"

namespace taskboard::process {

// Printed by --version.
inline constexpr char kSchedulerVersion[] = "0.1.0";

// The --ha-* flags as given (docs/high-availability.md#running-replicas);
// HaFromFlags (scheduler_setup.h) checks them.
struct HaFlags {
  std::string etcd_endpoints;  // comma-separated host:port; empty: no HA
  std::string etcd_prefix = "/taskboard";
  std::string cluster = "taskboard";
  std::string replica_id;  // empty: the host name
  std::string advertise;
  std::string advertise_http;
  std::string lease_ttl = "3s";
  int sync_replicas = 1;
  std::string token;   // --ha-token: sent to the leader when following (with --auth-tokens)
  std::string tls_ca;  // --ha-tls-ca: verifies the leader's certificate (with --tls-cert)
  std::string sync_timeout = "1s";
};

struct SchedulerOptions {
  // --listen, --data-dir, --lease-timeout-ms, the keepalive, retry, size and
  // fan-out limits, --default-agent, --max-request-bytes, the approval and
  // saved-flow limits.
  server::SchedulerServerOptions server;
  bool memory = false;                  // --memory: no data directory, state lost on exit
  std::string durability = "sync";      // --durability: sync, wal or none
  std::string port_file;                // --port-file
  std::string retention = "30d";        // --retention (0: keep forever)
  std::string cache_max_ttl = "7d";     // --cache-max-ttl
  std::string audit_retention = "90d";  // --audit-retention (0: keep forever)
  int64_t ledger_cache_mb = engine::LedgerBook::kDefaultCacheBytes >> 20;  // --ledger-cache-mb
  std::string llm_limits;        // --llm-limits: a YAML file, re-read on SIGHUP; empty: none
  std::string auth_tokens;       // --auth-tokens: a tokens file, re-read on SIGHUP; empty: off
  bool insecure = false;         // --insecure
  tls::ServerTlsFlags tls;       // --tls-cert, --tls-key, --tls-client-ca
  web::HttpFlags http;           // --http-*, --metrics-listen, --metrics-port-file
  notify::WebhookFlags webhook;  // --approval-webhook*
  log::LogFlags log;             // --log-level, --log-format
  HaFlags ha;                    // --ha-*
  // Traces (docs/observability.md#flags): --otlp-endpoint and
  // --trace-sample-ratio ("" leaves the OTEL_* environment's sampler).
  std::string otlp_endpoint;
  std::string trace_sample_ratio;
};

}  // namespace taskboard::process

#endif  // TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_OPTIONS_H_
