#include "worker/process/worker_server.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/log/log.h"

namespace taskboard::worker {

namespace {

// How long a stopping worker keeps exporting the spans still queued: a
// collector that is down must not hold up a drained worker's exit.
constexpr absl::Duration kTracingShutdown = absl::Seconds(5);

}  // namespace

WorkerServer::WorkerServer(WorkerSetup setup)
    : setup_(std::move(setup)), metrics_(registry_), otel_metrics_(registry_) {
  setup_.session.metrics = &metrics_;
}

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::BuildAndStart(WorkerSetup setup) {
  std::unique_ptr<WorkerServer> server(new WorkerServer(std::move(setup)));
  const std::string traces_url = server->setup_.tracing.traces_url;
  absl::StatusOr<std::unique_ptr<otel::Tracing>> tracing =
      otel::Tracing::Create(server->setup_.tracing, &server->otel_metrics_);
  if (!tracing.ok()) {
    log::Fatal("cannot set up tracing")
        .With("worker_id", server->setup_.session.worker_id)
        .With("error", tracing.status().message());
    return tracing.status();
  }
  server->tracing_ = *std::move(tracing);
  server->setup_.session.tracer = &server->tracing_->tracer();
  const WorkerSetup& built = server->setup_;
  const SessionOptions& options = built.session;
  for (const auto& [name, status] : built.agents->unavailable()) {
    log::Warn("agent not offered")
        .With("worker_id", options.worker_id)
        .With("agent", name)
        .With("error", status.message());
  }
  Json names = Json::array();
  for (const v1::AgentInfo& info : built.agents->Advertised()) names.push_back(info.name());
  log::Info("worker starting")
      .With("worker_id", options.worker_id)
      .With("scheduler", options.scheduler_address)
      .With("slots", options.slots)
      .With("prefetch", built.prefetch_label)
      .With("agents", names)
      .With("traces", traces_url.empty() ? "off" : traces_url)
      .With(options.workspaces.per_task() ? "task_directories" : "workspace_root",
            options.workspaces.root().string())
      .With("task_cgroups", built.task_cgroups.ok()
                                ? built.task_cgroups->string()
                                : absl::StrCat("none (", built.task_cgroups.status().message(),
                                               "); the per-task reapers end agents' processes"));

  server->session_ = std::make_unique<Session>(options, *built.agents);
  if (built.metrics_listen.empty()) return server;
  metrics::MetricsHttpOptions http_options = built.http;
  Session* session = server->session_.get();
  http_options.readiness = [session] { return session->Readiness(); };
  absl::StatusOr<std::unique_ptr<metrics::MetricsHttpServer>> started =
      metrics::ServeMetrics(&server->registry_, std::move(http_options), built.metrics_port_file);
  if (!started.ok()) {
    log::Fatal("cannot serve metrics")
        .With("worker_id", options.worker_id)
        .With("listen", built.metrics_listen)
        .With("error", started.status().message());
    return started.status();
  }
  server->http_ = *std::move(started);
  log::Info("serving metrics")
      .With("worker_id", options.worker_id)
      .With("listen", built.metrics_listen)
      .With("port", server->http_->port());
  return server;
}

absl::Status WorkerServer::Run(SignalDrain& drain) {
  drain.Start(session_.get(), setup_.session.drain_grace);
  const absl::Status status = session_->Run();
  drain.Stop();
  tracing_->Shutdown(kTracingShutdown);
  if (http_ != nullptr) http_->Shutdown();
  if (!status.ok()) {
    log::Fatal("worker stopped on an error")
        .With("worker_id", setup_.session.worker_id)
        .With("error", status.message());
  }
  return status;
}

}  // namespace taskboard::worker
