#include "scheduler/server/scheduler_server.h"

#include <unistd.h>

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "grpc/grpc.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "scheduler/server/audit_interceptor.h"
#include "scheduler/store/memory_store.h"
#include "scheduler/store/rocksdb_store.h"

namespace taskboard::server {

namespace {

// host:port others reach `listen` (host:port) at once bound to `port`: its
// host, or this host's name for a wildcard.
std::string AdvertisedAddress(const std::string& listen, int port) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") {
    char name[256] = {};
    host = gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0' ? name : "localhost";
  }
  return absl::StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SchedulerServer>> SchedulerServer::Create(
    SchedulerServerOptions options) {
  std::unique_ptr<SchedulerServer> server(new SchedulerServer());
  if (options.metrics_registry != nullptr) {
    server->engine_metrics_ = std::make_unique<engine::EngineMetrics>(*options.metrics_registry);
    server->llm_metrics_ = std::make_unique<engine::LlmMetrics>(*options.metrics_registry);
    options.engine.llm_metrics = server->llm_metrics_.get();
    server->grpc_metrics_ = std::make_unique<GrpcRequestMetrics>(*options.metrics_registry);
    options.engine.metrics = server->engine_metrics_.get();
    server->approval_metrics_ =
        std::make_unique<engine::ApprovalMetrics>(*options.metrics_registry);
    options.engine.approval_metrics = server->approval_metrics_.get();
    server->schedule_metrics_ =
        std::make_unique<engine::ScheduleMetrics>(*options.metrics_registry);
    options.engine.schedule_metrics = server->schedule_metrics_.get();
    server->trigger_metrics_ = std::make_unique<engine::TriggerMetrics>(*options.metrics_registry);
    options.engine.trigger_metrics = server->trigger_metrics_.get();
    if (options.ha.has_value()) {
      server->ha_metrics_ = std::make_unique<HaMetrics>(*options.metrics_registry);
    }
  }
  if (!options.approval_webhook.url.empty() || !options.limits.approval_webhook_allow.empty()) {
    options.approval_webhook.metrics = server->approval_metrics_.get();
    server->approval_notifier_ =
        std::make_unique<notify::WebhookNotifier>(options.approval_webhook);
    options.engine.approval_notifier = server->approval_notifier_.get();
  }
  server->policy_client_ = std::make_unique<PolicyServiceClient>();
  options.engine.policy_service = server->policy_client_.get();
  // Intake checks the fan-out limits a flow shows up front with the
  // engine's own values.
  options.limits.run = options.engine.limits;
  options.limits.approval = options.engine.approval_limits;
  server->options_ = options;
  server->handle_ = std::make_unique<EngineHandle>();
  if (!options.ha.has_value()) {
    if (absl::Status opened = server->OpenEngine(nullptr, nullptr, nullptr); !opened.ok()) {
      return opened;
    }
  }
  server->pool_ = std::make_unique<BlockingPool>(options.reader_threads);
  audit::AuditRecorderOptions audit_options;
  audit_options.commit = [handle = server->handle_.get()](store::WriteBatch writes,
                                                          std::function<void()> written) {
    engine::Engine* engine = handle->engine();
    if (engine == nullptr) return false;
    engine->CommitWrites(std::move(writes), std::move(written));
    return true;
  };
  audit_options.store = [handle = server->handle_.get()] { return handle->store(); };
  audit_options.retention = options.audit_retention;
  audit_options.log = options.audit_log;
  audit_options.refused = options.audit_refused;
  audit_options.registry = options.metrics_registry;
  absl::StatusOr<std::unique_ptr<audit::AuditRecorder>> recorder =
      audit::AuditRecorder::Create(std::move(audit_options));
  if (!recorder.ok()) {
    if (server->engine_ != nullptr) server->engine_->Stop();
    return recorder.status();
  }
  server->audit_ = *std::move(recorder);
  server->gate_ =
      std::make_unique<CallGate>(CallGateOptions{.authenticator = options.authenticator,
                                                 .max_request_bytes = options.max_request_bytes,
                                                 .leader = server->handle_.get()});
  server->scheduler_service_ = std::make_unique<SchedulerService>(
      server->handle_.get(), server->pool_.get(), options.limits, server->gate_.get());
  server->gateway_service_ =
      std::make_unique<WorkerGatewayService>(server->handle_.get(), server->gate_.get());
  // Checkpoints beside the data directory: on its filesystem (SST files are
  // hard links), outside the directory RocksDB owns.
  server->backup_service_ = std::make_unique<BackupService>(
      server->handle_.get(),
      options.data_dir.empty() ? "" : absl::StrCat(options.data_dir, ".checkpoints"),
      server->gate_.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(
      options.listen_address,
      options.credentials != nullptr ? options.credentials : grpc::InsecureServerCredentials(),
      &server->port_);
  // Messages may carry a spec, an output or a tool result up to their limits
  // plus framing; larger ones get our clear size error rather than gRPC's.
  // Likewise a request over --max-request-bytes (gRPC's limit is more than
  // twice it).
  int64_t largest = std::max({options.limits.max_spec_bytes, options.limits.max_args_bytes,
                              options.engine.max_output_bytes, options.max_request_bytes,
                              options.engine.limits.max_tool_result_bytes});
  // At least 16 MiB: workers cap outputs at 4 MiB, and an output over
  // --max-output-bytes must arrive to be refused with a clear task error (a
  // message over gRPC's limit would break the worker's stream instead).
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<int64_t>(std::max<int64_t>(16 << 20, largest * 2 + (1 << 20)), INT32_MAX)));
  builder.AddChannelArgument(
      GRPC_ARG_KEEPALIVE_TIME_MS,
      static_cast<int>(std::min<int64_t>(options.keepalive_time_ms, INT32_MAX)));
  builder.AddChannelArgument(
      GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
      static_cast<int>(std::min<int64_t>(options.keepalive_timeout_ms, INT32_MAX)));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Workers ping too (their --keepalive-time-ms, at least 1 s): accept
  // that rather than answering with GOAWAY "too many pings".
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             kMinClientPingMs);
  builder.RegisterService(server->scheduler_service_.get());
  builder.RegisterService(server->gateway_service_.get());
  builder.RegisterService(server->backup_service_.get());
  if (options.ha.has_value()) {
    server->replica_switch_ =
        std::make_unique<ReplicaServiceSwitch>(server->handle_.get(), server->gate_.get());
    builder.RegisterService(server->replica_switch_.get());
    server->replica_admin_ = std::make_unique<ReplicaAdminService>(server->gate_.get());
    builder.RegisterService(server->replica_admin_.get());
  }
  {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
    if (server->grpc_metrics_ != nullptr) {
      creators.push_back(server->grpc_metrics_->InterceptorFactory());
    }
    creators.push_back(AuditInterceptorFactory(server->audit_.get(), options.authenticator));
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    if (server->engine_ != nullptr) server->engine_->Stop();
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen_address,
                     ": the address is invalid or its port is in use (choose another with "
                     "--listen, e.g. 127.0.0.1:0 for any free port)"));
  }
  server->serving_ = true;
  return server;
}

absl::Status SchedulerServer::OpenEngine(std::shared_ptr<store::RocksDbWriteHook> hook,
                                         engine::ReplicationGate* gate,
                                         std::function<bool()> still_leading) {
  if (options_.data_dir.empty()) {
    store_ = std::make_unique<store::MemoryStore>();
  } else {
    store::RocksDbStoreOptions store_options;
    store_options.path = options_.data_dir;
    store_options.durability = options_.durability;
    store_options.write_hook = std::move(hook);
    absl::StatusOr<std::unique_ptr<store::Store>> opened = store::OpenRocksDbStore(store_options);
    if (!opened.ok()) return opened.status();
    store_ = *std::move(opened);
    log::Info("store opened").With("data_dir", options_.data_dir);
  }
  // Under the lock until published: a SIGHUP's limits reach either the
  // options copied here or the published engine (SetLlmLimits).
  absl::MutexLock lock(&limits_mu_);
  // Saved flows first: the engine's schedules start runs of them.
  absl::StatusOr<std::unique_ptr<engine::SavedFlows>> saved =
      engine::SavedFlows::Create(store_.get(), options_.saved_flows);
  if (!saved.ok()) return saved.status();
  saved_ = *std::move(saved);
  schedule_runs_ = std::make_unique<IntakeScheduleRuns>(saved_.get(), options_.limits);
  engine::EngineOptions engine_options = options_.engine;
  engine_options.store = store_.get();
  engine_options.schedule_runs = schedule_runs_.get();
  engine_options.trigger_runs = schedule_runs_.get();
  engine_options.replication_gate = gate;
  if (gate != nullptr && ha_metrics_ != nullptr) {
    engine_options.replication_released = [metrics = ha_metrics_.get()](absl::Duration waited) {
      metrics->AckWaited(waited);
    };
  }
  absl::StatusOr<std::unique_ptr<engine::Engine>> engine =
      engine::Engine::Create(std::move(engine_options));
  if (!engine.ok()) return engine.status();
  engine_ = *std::move(engine);
  // Before anything reads a flow: on a replicated leader, only
  // acknowledged versions (saved_flows.h).
  saved_->ReadFrom(&engine_->store());
  engine_->Start();
  // RPC handlers read what the engine lets other threads see: on a
  // replicated leader, only acknowledged batches (acked_store.h).
  handle_->Publish(engine_.get(), saved_.get(), &engine_->store(), std::move(still_leading));
  return absl::OkStatus();
}

absl::Status SchedulerServer::StartReplica(const std::string& http_address) {
  if (!options_.ha.has_value() || role_ != nullptr) return absl::OkStatus();
  ReplicaRoleOptions role;
  role.ha = *options_.ha;
  if (role.ha.advertise.empty()) {
    role.ha.advertise = AdvertisedAddress(options_.listen_address, port_);
  }
  if (role.ha.advertise_http.empty()) role.ha.advertise_http = http_address;
  role.data_dir = options_.data_dir;
  role.durability = options_.durability;
  role.handle = handle_.get();
  role.replica_service = replica_switch_.get();
  role.metrics = ha_metrics_.get();
  role.promote = [this](std::shared_ptr<store::RocksDbWriteHook> hook,
                        engine::ReplicationGate* gate, std::function<bool()> still_leading) {
    return OpenEngine(std::move(hook), gate, std::move(still_leading));
  };
  role.abandon_unreleased = [this]() -> size_t {
    engine::Engine* engine = handle_->engine();
    return engine == nullptr ? 0 : engine->AbandonUnreleased();
  };
  // A follower keeps no audit records of its own (its store is the
  // leader's copy), so the promotion by force goes into the trail once the
  // replica leads (docs/operations.md#failing-over-by-hand).
  role.promoted_by_force = [this](const std::string& record) {
    v1::AuditEvent event;
    event.set_method("ReplicaAdmin.PromoteReplica");
    event.set_target(options_.ha->replica_id);
    event.set_outcome(v1::AUDIT_OUTCOME_OK);
    event.set_code("OK");
    event.set_detail(absl::StrCat("may_have_lost_writes=true record=", record));
    audit_->Record(std::move(event));
  };
  absl::StatusOr<std::unique_ptr<ReplicaRole>> started = ReplicaRole::Start(std::move(role));
  if (!started.ok()) return started.status();
  role_ = *std::move(started);
  replica_admin_->Set(role_.get());
  return absl::OkStatus();
}

void SchedulerServer::SetLlmLimits(governance::LlmLimits limits) {
  absl::MutexLock lock(&limits_mu_);
  options_.engine.llm_limits = limits;
  if (engine::Engine* engine = handle_->engine(); engine != nullptr) {
    engine->SetLlmLimits(std::move(limits));
  }
}

SchedulerServer::~SchedulerServer() { Shutdown(); }

std::shared_ptr<grpc::Channel> SchedulerServer::InProcessChannel() {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  return server_->InProcessChannel(arguments);
}

absl::Status SchedulerServer::Readiness() const {
  if (!serving_) {
    return absl::UnavailableError(
        "shutting down: the engine loop is stopping and the store "
        "closing");
  }
  // A replica's engine is published once it leads, and the handle checks
  // the lease on every call: readiness means "leader" (a Service sends
  // traffic to the leader only).
  if (absl::Status leading = handle_->CheckLeader(); !leading.ok()) {
    return absl::UnavailableError(absl::StrCat("a follower replica: ", leading.message()));
  }
  return absl::OkStatus();
}

void SchedulerServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  serving_ = false;
  // A promotion under way finishes first; the followers' streams end.
  if (role_ != nullptr) {
    role_->BeginShutdown();
    // No follower acknowledges anything more, so nothing more is released:
    // what waits is dropped now rather than after Engine::Stop's wait
    // (docs/high-availability.md#acknowledged-writes).
    if (engine_ != nullptr) {
      const size_t dropped = engine_->AbandonUnreleased();
      if (ha_metrics_ != nullptr) ha_metrics_->EffectsDropped(dropped);
    }
  }
  if (server_ != nullptr) {
    // Worker streams and watches never end on their own: end them first, so
    // their clients reconnect to the next scheduler now and the shutdown
    // does not wait out its deadline for them.
    if (engine_ != nullptr) {
      engine_->CloseStreams("the scheduler is shutting down; reconnect to its successor");
    }
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  // Its sweep commits through the engine: done before the engine stops.
  if (audit_ != nullptr) audit_->Stop();
  if (engine_ != nullptr) engine_->Stop();
  // After the engine's last write: a leader resigns, so a follower takes
  // over at once.
  if (role_ != nullptr) role_->Stop();
  // After the engine's last batch: what it still queued is abandoned
  // (waiting approvals are announced again at the next start).
  if (approval_notifier_ != nullptr) approval_notifier_->Stop();
  pool_.reset();
  server_.reset();
}

}  // namespace taskboard::server
