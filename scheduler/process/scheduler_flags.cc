#include "scheduler/process/scheduler_flags.h"

#include <cstdint>
#include <functional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/command_line.h"
#include "common/duration_text.h"
#include "common/json_depth_flag.h"
#include "common/log/log_flags.h"
#include "scheduler/process/flag_groups.h"

namespace taskboard::process {
namespace {

// Checks a duration flag's text (common/duration_text.h); with
// `positive`, 0 is refused too.
std::function<std::string(const std::string&)> DurationCheck(bool positive) {
  return [positive](const std::string& text) {
    absl::StatusOr<absl::Duration> parsed = ParseDurationText(text);
    if (!parsed.ok()) return std::string(parsed.status().message());
    return !positive || *parsed > absl::ZeroDuration() ? std::string()
                                                       : std::string("must be above 0");
  };
}

// Replicated schedulers (docs/high-availability.md#running-replicas): none
// of them does anything without --ha-etcd-endpoints.
void AddHaFlags(CLI::App& app, HaFlags& ha) {
  app.add_option("--ha-etcd-endpoints", ha.etcd_endpoints,
                 "Run as one replica of a replicated scheduler, elected through this etcd "
                 "(comma-separated host:port of its members); empty: a single scheduler")
      ->envname("TASKBOARD_HA_ETCD_ENDPOINTS");
  app.add_option("--ha-cluster", ha.cluster,
                 "The replicated scheduler this replica belongs to (its etcd keys' name)")
      ->envname("TASKBOARD_HA_CLUSTER")
      ->capture_default_str();
  app.add_option("--ha-replica-id", ha.replica_id,
                 "This replica's name among the replicas; empty: the host name")
      ->envname("TASKBOARD_HA_REPLICA_ID");
  app.add_option("--ha-advertise", ha.advertise,
                 "host:port where the other replicas, workers and clients reach this replica's "
                 "gRPC port; empty: the --listen host (the host name for a wildcard) and port")
      ->envname("TASKBOARD_HA_ADVERTISE");
  app.add_option("--ha-advertise-http", ha.advertise_http,
                 "host:port of this replica's HTTP API, named to HTTP clients of a follower; "
                 "empty: from --http-listen like --ha-advertise")
      ->envname("TASKBOARD_HA_ADVERTISE_HTTP");
  app.add_option("--ha-lease-ttl", ha.lease_ttl,
                 "The leader's etcd lease: a dead leader is replaced about this long after it "
                 "died, and a cut-off one stops acting before that (2s, 3s; etcd's minimum "
                 "applies)")
      ->envname("TASKBOARD_HA_LEASE_TTL")
      ->check(DurationCheck(/*positive=*/true))
      ->capture_default_str();
  app.add_option("--ha-sync-replicas", ha.sync_replicas,
                 "Followers in the in-sync set: only these (and the last leader) may take over")
      ->envname("TASKBOARD_HA_SYNC_REPLICAS")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  app.add_option("--ha-sync-timeout", ha.sync_timeout,
                 "An in-sync follower that keeps the leader's writes waiting this long is "
                 "replaced by a follower that holds them; with none to replace it, writes "
                 "wait for it (500ms, 1s)")
      ->envname("TASKBOARD_HA_SYNC_TIMEOUT")
      ->check(DurationCheck(/*positive=*/true))
      ->capture_default_str();
  app.add_option("--ha-etcd-prefix", ha.etcd_prefix,
                 "The etcd key prefix of every cluster's keys (starts with /)")
      ->envname("TASKBOARD_HA_ETCD_PREFIX")
      ->capture_default_str();
  app.add_option("--ha-token", ha.token,
                 "With --auth-tokens: an admin token of the tokens file, which this replica "
                 "sends to the leader to replicate its store (prefer the variable: a flag shows "
                 "in ps)")
      ->envname("TASKBOARD_HA_TOKEN");
  app.add_option("--ha-tls-ca", ha.tls_ca,
                 "With --tls-cert: the CA (PEM) that signed the replicas' certificates, which "
                 "this replica verifies the leader's against when following (with "
                 "--tls-client-ca it also presents --tls-cert as its client certificate)")
      ->envname("TASKBOARD_HA_TLS_CA");
}

}  // namespace

void AddSchedulerFlags(CLI::App& app, SchedulerOptions& options) {
  app.set_version_flag("--version", absl::StrCat("taskboard-scheduler ", kSchedulerVersion));
  app.add_option("--listen", options.server.listen_address,
                 "gRPC address host:port (port 0: any free)")
      ->envname("TASKBOARD_LISTEN")
      ->capture_default_str();
  app.add_option("--data-dir", options.server.data_dir, "RocksDB directory for all durable state")
      ->envname("TASKBOARD_DATA_DIR");
  app.add_flag("--memory", options.memory,
               "Keep state in memory only (tests, benchmarks): lost on exit")
      ->envname("TASKBOARD_MEMORY");
  app.add_option("--durability", options.durability,
                 "sync: fsync every commit; wal: survive process crashes, not power loss; "
                 "none: no write-ahead log (benchmarks)")
      ->envname("TASKBOARD_DURABILITY")
      ->check(CLI::IsMember({"sync", "wal", "none"}))
      ->capture_default_str();
  app.add_option("--port-file", options.port_file, "Write the bound port here once serving")
      ->envname("TASKBOARD_PORT_FILE");
  app.add_option("--lease-timeout-ms", options.server.engine.lease_timeout_ms,
                 "A worker silent this long loses its tasks to other workers")
      ->envname("TASKBOARD_LEASE_TIMEOUT_MS")
      ->capture_default_str();
  app.add_option("--llm-limits", options.llm_limits,
                 "LLM governance: per-model rpm/tpm/concurrency limits, prices and tenant "
                 "budgets (YAML; docs/llm-governance.md), re-read on SIGHUP; empty: calls are "
                 "granted at once and billed at the agent files' prices")
      ->envname("TASKBOARD_LLM_LIMITS");
  app.add_option("--retention", options.retention,
                 "Delete finished runs this long after they finished, with their events, tasks, "
                 "ledger and run-scoped cache entries (30d, 12h, 90m; 0: keep forever)")
      ->envname("TASKBOARD_RETENTION")
      ->check(DurationCheck(/*positive=*/false))
      ->capture_default_str();
  app.add_option("--audit-retention", options.audit_retention,
                 "Delete audit records this long after they were written (90d, 12h; 0: keep "
                 "forever; docs/audit.md#retention)")
      ->envname("TASKBOARD_AUDIT_RETENTION")
      ->check(DurationCheck(/*positive=*/false))
      ->capture_default_str();
  app.add_option("--audit-log", options.server.audit_log,
                 "Also write each audit record as one JSON line for a SIEM: off, stderr, or a "
                 "file path to append to (docs/audit.md#siem-lines)")
      ->envname("TASKBOARD_AUDIT_LOG")
      ->capture_default_str();
  app.add_option("--audit-refused-rate", options.server.audit_refused.per_source_per_second,
                 "Refused calls recorded per second per source (a token's tenant, else the "
                 "caller's address); more are dropped and counted in "
                 "taskboard_audit_refused_dropped_total (docs/audit.md#refused-calls)")
      ->envname("TASKBOARD_AUDIT_REFUSED_RATE")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--audit-refused-burst", options.server.audit_refused.per_source_burst,
                 "Refused calls one source may have recorded at once before "
                 "--audit-refused-rate applies; all sources together get ten times the rate "
                 "and burst")
      ->envname("TASKBOARD_AUDIT_REFUSED_BURST")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  app.add_option("--cache-max-ttl", options.cache_max_ttl,
                 "No tool-cache entry lives longer, whatever its tool or flow declares (7d, 12h)")
      ->envname("TASKBOARD_CACHE_MAX_TTL")
      ->check(DurationCheck(/*positive=*/true))
      ->capture_default_str();
  app.add_option("--cache-max-entries-per-tenant",
                 options.server.engine.cache_limits.max_entries_per_tenant,
                 "Tool-cache entries one tenant may hold in all its scopes; past it the oldest "
                 "are evicted")
      ->envname("TASKBOARD_CACHE_MAX_ENTRIES_PER_TENANT")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}))
      ->capture_default_str();
  app.add_option("--tool-call-hold-ms", options.server.engine.tool_call_hold_ms,
                 "How long identical cacheable tool calls wait for one whose worker is out of "
                 "touch (stream dropped; or after a restart or takeover, not yet announced) "
                 "before one of them runs it; 0: at once")
      ->envname("TASKBOARD_TOOL_CALL_HOLD_MS")
      ->check(CLI::Range(int64_t{0}, int64_t{600'000}))
      ->capture_default_str();
  app.add_option("--ledger-cache-mb", options.ledger_cache_mb,
                 "Memory for tool-call observation bodies shared by all active requests; the "
                 "ledgers keep only their indexes in memory and read older calls from the store "
                 "(0: read every selected call from the store)")
      ->envname("TASKBOARD_LEDGER_CACHE_MB")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--keepalive-time-ms", options.server.keepalive_time_ms,
                 "Ping a connection (worker, client) after this much silence; one that does not "
                 "answer within --keepalive-timeout-ms is closed and its worker unregistered")
      ->envname("TASKBOARD_KEEPALIVE_TIME_MS")
      ->check(CLI::Range(int64_t{1'000}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--keepalive-timeout-ms", options.server.keepalive_timeout_ms,
                 "How long a keepalive ping may go unanswered")
      ->envname("TASKBOARD_KEEPALIVE_TIMEOUT_MS")
      ->check(CLI::Range(int64_t{100}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--heartbeat-interval-ms", options.server.engine.heartbeat_interval_ms,
                 "How often workers heartbeat (sent to them on connect)")
      ->envname("TASKBOARD_HEARTBEAT_INTERVAL_MS")
      ->capture_default_str();
  app.add_option("--scheduling-timeout-ms", options.server.engine.scheduling_timeout_ms,
                 "A ready task whose agent no connected worker offers fails after this")
      ->envname("TASKBOARD_SCHEDULING_TIMEOUT_MS")
      ->capture_default_str();
  app.add_option("--default-agent", options.server.engine.default_agent,
                 "Agent for whatever a flow leaves without one (phases, branches, board tasks, "
                 "pattern roles); empty: the first registered agent of the connected workers. "
                 "Submit fails at once when no connected worker offers it")
      ->envname("TASKBOARD_DEFAULT_AGENT");
  app.add_option("--retry-base-ms", options.server.engine.retry_backoff.base_ms,
                 "First retry delay; doubles per failure, with jitter")
      ->envname("TASKBOARD_RETRY_BASE_MS")
      ->capture_default_str();
  app.add_option("--retry-max-ms", options.server.engine.retry_backoff.max_ms, "Retry delay cap")
      ->envname("TASKBOARD_RETRY_MAX_MS")
      ->capture_default_str();
  app.add_option("--max-output-bytes", options.server.engine.max_output_bytes,
                 "Largest task output accepted")
      ->envname("TASKBOARD_MAX_OUTPUT_BYTES")
      ->capture_default_str();
  app.add_option("--max-spec-bytes", options.server.limits.max_spec_bytes, "Largest flow accepted")
      ->envname("TASKBOARD_MAX_SPEC_BYTES")
      ->capture_default_str();
  app.add_option("--max-args-bytes", options.server.limits.max_args_bytes,
                 "Largest run args accepted")
      ->envname("TASKBOARD_MAX_ARGS_BYTES")
      ->capture_default_str();
  app.add_option("--max-tasks-per-run", options.server.limits.max_tasks_per_run,
                 "Most tasks (board) or phases (taskflow) in one run")
      ->envname("TASKBOARD_MAX_TASKS_PER_RUN")
      ->capture_default_str();
  AddRunLimitFlags(app, options.server.engine.limits);
  AddApprovalLimitFlags(app, options.server.engine.approval_limits);
  AddSavedFlowLimitFlags(app, options.server.saved_flows);
  app.add_option("--schedules-max-per-tenant", options.server.engine.schedules_max_per_tenant,
                 "Schedules one tenant may have (more: RESOURCE_EXHAUSTED; docs/schedules.md)")
      ->envname("TASKBOARD_SCHEDULES_MAX_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  engine::EngineOptions& engine_options = options.server.engine;
  app.add_option("--triggers-max-per-tenant", engine_options.triggers_max_per_tenant,
                 "Event triggers one tenant may have (more: RESOURCE_EXHAUSTED; "
                 "docs/schedules.md#event-triggers)")
      ->envname("TASKBOARD_TRIGGERS_MAX_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--triggers-max-runs-per-event", engine_options.triggers_max_runs_per_event,
                 "Runs one event may start across the triggers of its name (the rest are "
                 "refused; docs/schedules.md#rate-limits)")
      ->envname("TASKBOARD_TRIGGERS_MAX_RUNS_PER_EVENT")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000}))
      ->capture_default_str();
  app.add_option("--triggers-tenant-per-minute", engine_options.triggers_tenant_per_minute,
                 "Events one tenant's triggers accept a minute, all triggers together (over "
                 "it: HTTP 429 with Retry-After; docs/schedules.md#rate-limits)")
      ->envname("TASKBOARD_TRIGGERS_TENANT_PER_MINUTE")
      ->check(CLI::Range(0.001, 1'000'000.0))
      ->capture_default_str();
  app.add_option("--triggers-tenant-burst", engine_options.triggers_tenant_burst,
                 "Events one tenant's triggers accept at once from a full bucket")
      ->envname("TASKBOARD_TRIGGERS_TENANT_BURST")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000}))
      ->capture_default_str();
  // Run storage (docs/mcp.md#flowstate).
  engine::RunStorageLimits& run_state = options.server.engine.run_storage_limits;
  app.add_option("--run-state-max-keys", run_state.max_keys_per_run,
                 "Keys one root run's storage may hold, both spaces, children included")
      ->envname("TASKBOARD_RUN_STATE_MAX_KEYS")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--run-state-max-value-bytes", run_state.max_value_bytes,
                 "Largest value a task may set in its run storage")
      ->envname("TASKBOARD_RUN_STATE_MAX_VALUE_BYTES")
      ->check(CLI::Range(int64_t{1}, int64_t{16} << 20))
      ->capture_default_str();
  app.add_option("--run-state-max-run-bytes", run_state.max_run_bytes,
                 "Bytes (keys and values) one root run's storage may hold")
      ->envname("TASKBOARD_RUN_STATE_MAX_RUN_BYTES")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
      ->capture_default_str();
  app.add_option("--run-state-max-tenant-bytes", run_state.max_tenant_bytes,
                 "Bytes (keys and values) the run storage of all of one tenant's runs may hold")
      ->envname("TASKBOARD_RUN_STATE_MAX_TENANT_BYTES")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  web::AddHttpFlags(app, options.http);
  app.add_option("--max-request-bytes", options.server.max_request_bytes,
                 "Largest client request accepted (RESOURCE_EXHAUSTED above); 0: no limit")
      ->envname("TASKBOARD_MAX_REQUEST_BYTES")
      ->capture_default_str();
  app.add_option("--auth-tokens", options.auth_tokens,
                 "Tokens file (YAML or JSON): every call needs a bearer token listed there, "
                 "re-read on SIGHUP (docs/security.md); empty: no authentication")
      ->envname("TASKBOARD_AUTH_TOKENS");
  app.add_flag("--insecure", options.insecure,
               "Allow a --listen address other machines can reach without --auth-tokens "
               "(a trusted network only; logs a warning)")
      ->envname("TASKBOARD_INSECURE");
  app.add_option("--tls-cert", options.tls.cert, "Serve TLS with this certificate chain (PEM)")
      ->envname("TASKBOARD_TLS_CERT");
  app.add_option("--tls-key", options.tls.key, "The private key of --tls-cert (PEM)")
      ->envname("TASKBOARD_TLS_KEY");
  app.add_option("--tls-client-ca", options.tls.client_ca,
                 "Require client certificates signed by this CA (mTLS; PEM)")
      ->envname("TASKBOARD_TLS_CLIENT_CA");
  AddApprovalWebhookFlags(app, options.webhook);
  AddHaFlags(app, options.ha);
  app.add_option("--otlp-endpoint", options.otlp_endpoint,
                 "Export trace spans over OTLP/HTTP (protobuf) to this collector base URL "
                 "(spans go to <URL>/v1/traces); wins over OTEL_EXPORTER_OTLP_ENDPOINT and "
                 "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (docs/observability.md)");
  app.add_option("--trace-sample-ratio", options.trace_sample_ratio,
                 "Share of runs traced, in [0, 1], decided once per run and kept for all its "
                 "spans, the workers' included; a run whose SubmitRun carries a traceparent "
                 "follows its sampled flag. Default: OTEL_TRACES_SAMPLER (every run)")
      ->envname("TASKBOARD_TRACE_SAMPLE_RATIO");
  log::AddLogFlags(app, &options.log);
  AddJsonDepthFlag(app);
}

std::optional<int> ParseSchedulerFlags(int argc, char** argv, SchedulerOptions& options) {
  CLI::App app{"taskboard-scheduler: owns Taskboard runs, their tasks and their durable state"};
  AddSchedulerFlags(app, options);
  return ParseCommandLine(app, argc, argv);
}

}  // namespace taskboard::process
