#ifndef TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVER_H_
#define TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVER_H_

// The assembled scheduler process: store, engine, saved flows, both gRPC
// services (plus gRPC health checking and reflection) on one port. As a
// replica of a replicated scheduler (options.ha, docs/high-availability.md)
// it serves the port from the start but opens the store and the engine only
// once it leads (replica_role.h); until then every call answers NotLeader.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/metrics/registry.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "scheduler/audit/audit_recorder.h"
#include "scheduler/auth/authenticator.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/saved_flows.h"
#include "scheduler/engine/schedules/schedule_metrics.h"
#include "scheduler/notify/webhook_notifier.h"
#include "scheduler/server/backup_service.h"
#include "scheduler/server/blocking_pool.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"
#include "scheduler/server/flow_intake.h"
#include "scheduler/server/ha_metrics.h"
#include "scheduler/server/ha_options.h"
#include "scheduler/server/intake_schedule_runs.h"
#include "scheduler/server/policy_service_client.h"
#include "scheduler/server/replica_admin_service.h"
#include "scheduler/server/replica_role.h"
#include "scheduler/server/replica_service_switch.h"
#include "scheduler/server/scheduler_metrics.h"
#include "scheduler/server/scheduler_service.h"
#include "scheduler/server/worker_gateway_service.h"
#include "scheduler/store/store.h"

namespace taskboard::server {

// The most often a client (a worker's --keepalive-time-ms) may ping.
inline constexpr int kMinClientPingMs = 1'000;

struct SchedulerServerOptions {
  // host:port; port 0 picks a free port (see SchedulerServer::port()).
  std::string listen_address = "127.0.0.1:7233";
  // RocksDB directory; empty = an in-memory store (tests, benchmarks).
  std::string data_dir;
  store::Durability durability = store::Durability::kSync;
  engine::EngineOptions engine;  // `store` is filled in by Create
  IntakeLimits limits;
  // Versions per saved flow, and each tenant's saved flows and bytes
  // (--saved-flow-max-versions, --saved-flows-max-*).
  engine::SavedFlowLimits saved_flows;
  int reader_threads = 2;
  // Where the engine's and gRPC's metrics are registered (docs/metrics.md);
  // null: no metrics. Outlives the server.
  metrics::Registry* metrics_registry = nullptr;
  // Bearer-token authentication (docs/security.md); null: off. Outlives
  // the server.
  const auth::Authenticator* authenticator = nullptr;
  // TLS / mTLS for the port; null: plaintext.
  std::shared_ptr<grpc::ServerCredentials> credentials;
  // Client API requests over this many bytes fail with RESOURCE_EXHAUSTED
  // naming --max-request-bytes; 0: only the limits of `limits` and gRPC's.
  int64_t max_request_bytes = 0;
  // HTTP/2 keepalive (--keepalive-time-ms, --keepalive-timeout-ms): every
  // connection is pinged after this much silence and closed when the ping
  // is not answered in time, so a worker whose host vanished (or that is
  // stopped) leaves the registry in seconds, not at the kernel's TCP
  // timeout. Clients may ping as often as every kMinClientPingMs.
  int64_t keepalive_time_ms = 10'000;
  int64_t keepalive_timeout_ms = 10'000;
  // The approval webhook (--approval-webhook*, docs/approvals.md#notify):
  // its sender starts when `url` is set or flows may name their own
  // (limits.approval_webhook_allow); `metrics` is filled in by Create.
  notify::WebhookNotifierOptions approval_webhook;
  // The audit trail (docs/audit.md): --audit-retention (zero: forever),
  // --audit-log (off, stderr or a path), --audit-refused-rate/-burst.
  absl::Duration audit_retention = absl::Hours(24 * 90);
  std::string audit_log = "off";
  audit::RefusalLimits audit_refused;
  // A replica of a replicated scheduler (--ha-etcd-endpoints,
  // docs/high-availability.md); none: the single scheduler.
  std::optional<HaOptions> ha;
};

class SchedulerServer {
 public:
  // Opens the store, recovers the engine, binds the port and starts serving.
  // FAILED_PRECONDITION when the data directory is locked by another
  // scheduler; UNAVAILABLE when the address cannot be bound. A replica
  // (options.ha) binds the port and serves NotLeader answers until
  // StartReplica.
  static absl::StatusOr<std::unique_ptr<SchedulerServer>> Create(SchedulerServerOptions options);
  ~SchedulerServer();

  // A replica: starts following and campaigning (replica_role.h), advertising
  // `http_address` (host:port; empty: none) unless --ha-advertise-http said
  // otherwise. FAILED_PRECONDITION when the data directory is locked; etcd
  // option errors. OK without options.ha.
  absl::Status StartReplica(const std::string& http_address);

  int port() const { return port_; }
  // New LLM limits (SIGHUP): in force now when the engine runs, else from
  // the moment this replica leads.
  void SetLlmLimits(governance::LlmLimits limits);
  // A channel to this server that skips the network, for the scheduler's
  // own HTTP API (scheduler/web/): its calls pass the same checks as any
  // client's. No message size limit of its own (the server's apply).
  std::shared_ptr<grpc::Channel> InProcessChannel();
  // For /readyz: OK while the store is open and the engine loop runs (a
  // replica: while it leads, within its lease); UNAVAILABLE with the reason
  // otherwise (shutting down, following). Thread-safe.
  absl::Status Readiness() const;
  // After the tokens file was re-read: ends the worker streams and watches
  // whose token is no longer admitted (they reconnect and are refused); how
  // many.
  int CloseRevokedStreams() { return gate_->CloseRevoked(); }
  // Stops accepting, cancels open streams (workers reconnect to the next
  // scheduler), drains the engine and closes the store.
  void Shutdown();

 private:
  SchedulerServer() = default;
  // Opens the store (with `hook`, a replica's LeaderWriteHook; null for a
  // single scheduler), recovers and starts the engine (with `gate`, the
  // leader's replication gate; null for a single scheduler), makes the saved
  // flows and publishes them to handle_.
  absl::Status OpenEngine(std::shared_ptr<store::RocksDbWriteHook> hook,
                          engine::ReplicationGate* gate, std::function<bool()> still_leading);

  SchedulerServerOptions options_;  // as the engine is made from it
  std::unique_ptr<HaMetrics> ha_metrics_;
  // options_.engine.llm_limits, from a SIGHUP until the engine is published.
  absl::Mutex limits_mu_;

  // Before the engine and the gRPC server, which call them until they stop.
  std::unique_ptr<engine::LlmMetrics> llm_metrics_;
  std::unique_ptr<engine::EngineMetrics> engine_metrics_;
  std::unique_ptr<GrpcRequestMetrics> grpc_metrics_;
  std::unique_ptr<engine::ApprovalMetrics> approval_metrics_;
  std::unique_ptr<engine::ScheduleMetrics> schedule_metrics_;
  std::unique_ptr<engine::TriggerMetrics> trigger_metrics_;
  // Before the engine, which notifies it until it stops; stopped after it.
  std::unique_ptr<notify::WebhookNotifier> approval_notifier_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<engine::Engine> engine_;
  // After engine_: destroyed first, waiting for PolicyService calls whose
  // answers post to the (stopped, still alive) engine.
  std::unique_ptr<PolicyServiceClient> policy_client_;
  std::unique_ptr<engine::SavedFlows> saved_;
  // Over saved_: what the engine's schedules and triggers start (stopped
  // with the engine).
  std::unique_ptr<IntakeScheduleRuns> schedule_runs_;
  std::unique_ptr<BlockingPool> pool_;
  // After the engine (its sweeps commit through it), before the gRPC
  // server (whose interceptor records into it); stopped in Shutdown before
  // the engine stops.
  std::unique_ptr<audit::AuditRecorder> audit_;
  // What the services serve from; filled before serving, or when a replica
  // is promoted.
  std::unique_ptr<EngineHandle> handle_;
  std::unique_ptr<CallGate> gate_;
  std::unique_ptr<ReplicaServiceSwitch> replica_switch_;
  std::unique_ptr<ReplicaAdminService> replica_admin_;
  std::unique_ptr<SchedulerService> scheduler_service_;
  std::unique_ptr<WorkerGatewayService> gateway_service_;
  std::unique_ptr<BackupService> backup_service_;
  std::unique_ptr<grpc::Server> server_;
  // A replica's role, after the server (it promotes into the members above).
  std::unique_ptr<ReplicaRole> role_;
  int port_ = 0;
  bool shut_down_ = false;
  // True from a successful start until Shutdown begins.
  std::atomic<bool> serving_{false};
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVER_H_
