#include "scheduler/process/scheduler_process.h"

#include <signal.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/files.h"
#include "common/log/log.h"
#include "scheduler/governance/llm_limits.h"
#include "scheduler/server/call_gate.h"

namespace taskboard::process {
namespace {

// How long a stopping scheduler keeps exporting the spans still queued.
constexpr absl::Duration kTracingShutdown = absl::Seconds(5);

}  // namespace

SchedulerProcess::SchedulerProcess(SchedulerSetup setup)
    : signals_({SIGTERM, SIGINT, SIGHUP}), setup_(std::move(setup)), otel_metrics_(registry_) {
  setup_.server.metrics_registry = &registry_;
}

absl::StatusOr<std::unique_ptr<SchedulerProcess>> SchedulerProcess::BuildAndStart(
    SchedulerSetup setup) {
  std::unique_ptr<SchedulerProcess> process(new SchedulerProcess(std::move(setup)));
  absl::StatusOr<std::unique_ptr<otel::Tracing>> tracing =
      otel::Tracing::Create(process->setup_.tracing, &process->otel_metrics_);
  if (!tracing.ok()) {
    log::Fatal("cannot set up tracing").With("error", tracing.status().message());
    return tracing.status();
  }
  process->tracing_ = *std::move(tracing);
  process->setup_.server.engine.tracer = &process->tracing_->tracer();
  const SchedulerSetup& built = process->setup_;
  const server::SchedulerServerOptions& options = built.server;
  absl::StatusOr<std::unique_ptr<server::SchedulerServer>> server =
      server::SchedulerServer::Create(options);
  if (!server.ok()) {
    log::Fatal("scheduler cannot start").With("error", server.status().message());
    return server.status();
  }
  process->server_ = *std::move(server);
  const int port = process->server_->port();
  log::Info("scheduler serving")
      .With("port", port)
      .With("listen", options.listen_address)
      .With("data_dir", options.data_dir.empty() ? "memory" : options.data_dir)
      .With("durability", built.durability)
      .With("auth", built.authenticator != nullptr ? "tokens" : "off")
      .With("tls", built.tls_mode)
      .With("traces", built.tracing.enabled() ? built.tracing.traces_url : "off");
  // Before the gRPC port file: whoever waits for that one finds these too.
  server::SchedulerServer* serving = process->server_.get();
  if (!built.metrics_listen.empty()) {
    metrics::MetricsHttpOptions metrics_options = built.metrics_http;
    metrics_options.readiness = [serving] { return serving->Readiness(); };
    absl::StatusOr<std::unique_ptr<metrics::MetricsHttpServer>> started = metrics::ServeMetrics(
        &process->registry_, std::move(metrics_options), built.metrics_port_file);
    if (!started.ok()) {
      log::Fatal("cannot serve metrics")
          .With("listen", built.metrics_listen)
          .With("error", started.status().message());
      return started.status();
    }
    process->metrics_http_ = *std::move(started);
    log::Info("serving metrics")
        .With("port", process->metrics_http_->port())
        .With("listen", built.metrics_listen);
  }
  if (built.http_api.has_value()) {
    if (absl::Status started = process->StartHttpApi(); !started.ok()) return started;
  }
  // A replica campaigns once every port it advertises is served.
  if (absl::Status replica = process->server_->StartReplica(process->HttpAddress());
      !replica.ok()) {
    log::Fatal("cannot start the replica").With("error", replica.message());
    return replica;
  }
  if (!built.port_file.empty() &&
      !WriteFileAtomically(built.port_file, std::to_string(port) + "\n")) {
    log::Fatal("cannot write the port file; check that its directory exists and is writable")
        .With("port_file", built.port_file);
    return absl::InternalError(absl::StrCat("cannot write the port file ", built.port_file));
  }
  return process;
}

absl::Status SchedulerProcess::StartHttpApi() {
  web::ApiServerOptions api_options = *setup_.http_api;
  if (!api_options.api.refused.ok()) {
    log::Warn("HTTP API off").With("reason", api_options.api.refused.message());
  }
  server::SchedulerServer* serving = server_.get();
  api_options.readiness = [serving] { return serving->Readiness(); };
  const auth::Authenticator* tokens = setup_.authenticator.get();
  api_options.api.stream_tenant =
      [tokens](absl::string_view authorization) -> absl::StatusOr<std::string> {
    if (tokens == nullptr) return std::string();
    absl::StatusOr<auth::Principal> principal =
        tokens->Admit(authorization, server::SchedulerMethod("WatchRun"));
    if (!principal.ok()) return principal.status();
    return principal->tenant;
  };
  absl::StatusOr<std::unique_ptr<web::ApiServer>> started =
      web::ApiServer::Start(std::move(api_options), server_->InProcessChannel());
  if (!started.ok()) {
    log::Fatal("cannot serve the HTTP API")
        .With("listen", setup_.http_listen)
        .With("error", started.status().message());
    return started.status();
  }
  http_api_ = *std::move(started);
  if (!setup_.http_port_file.empty() &&
      !WriteFileAtomically(setup_.http_port_file, absl::StrCat(http_api_->port(), "\n"))) {
    log::Fatal(
        "cannot write the HTTP port file; check that its directory exists and is "
        "writable")
        .With("port_file", setup_.http_port_file);
    return absl::InternalError(
        absl::StrCat("cannot write the HTTP port file ", setup_.http_port_file));
  }
  log::Info("serving the HTTP API and console")
      .With("port", http_api_->port())
      .With("listen", setup_.http_listen);
  return absl::OkStatus();
}

std::string SchedulerProcess::HttpAddress() const {
  if (http_api_ == nullptr) return "";
  const std::string& listen = setup_.http_listen;
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") {
    // The gRPC address's host stands for this host's name as well.
    return "";
  }
  return absl::StrCat(host, ":", http_api_->port());
}

int SchedulerProcess::WaitForShutdownSignal() {
  int received = 0;
  while ((received = signals_.Wait()) == SIGHUP) RereadFiles();
  return received;
}

void SchedulerProcess::RereadFiles() {
  if (!setup_.llm_limits.empty()) {
    absl::StatusOr<governance::LlmLimits> loaded = governance::LoadLlmLimitsFile(setup_.llm_limits);
    if (loaded.ok()) {
      server_->SetLlmLimits(*std::move(loaded));
    } else {
      log::Error("llm limits not re-read; the previous limits stay in force")
          .With("error", loaded.status().message());
    }
  }
  if (setup_.authenticator == nullptr) {
    if (setup_.llm_limits.empty())
      log::Info("SIGHUP ignored: no --auth-tokens or --llm-limits to re-read");
    return;
  }
  absl::StatusOr<size_t> reloaded = setup_.authenticator->Reload();
  if (reloaded.ok()) {
    const int closed = server_->CloseRevokedStreams();
    log::Info("tokens file re-read")
        .With("tokens", static_cast<int64_t>(*reloaded))
        .With("closed_streams", closed);
  } else {
    log::Error("tokens file not re-read; the previous tokens stay in force")
        .With("error", reloaded.status().message());
  }
}

void SchedulerProcess::Shutdown(int signal) {
  log::Info("scheduler shutting down").With("signal", signal);
  if (http_api_ != nullptr) http_api_->Shutdown();
  if (metrics_http_ != nullptr) metrics_http_->Shutdown();
  server_->Shutdown();
  // The engine has stopped: what its last runs ended is queued.
  tracing_->Shutdown(kTracingShutdown);
  log::Info("scheduler stopped");
}

}  // namespace taskboard::process
