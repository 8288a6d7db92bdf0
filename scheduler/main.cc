// `taskboard-scheduler`: the scheduler service. Every flag has an
// environment-variable equivalent (TASKBOARD_...), shown by --help.
//
// On SIGTERM / SIGINT it stops accepting, lets open calls finish for up to
// 5 s, commits what the engine holds and closes the store; runs in progress
// continue when a scheduler starts again on the same data directory.
//
// With --metrics-listen it also serves /metrics, /healthz and /readyz over
// HTTP (docs/services.md, docs/metrics.md).

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "common/files.h"
#include "common/metrics/metrics_http.h"
#include "common/metrics/registry.h"
#include "scheduler/server/scheduler_server.h"

namespace {

void Log(const std::string& level, const std::string& message, const std::string& extra = "") {
  std::cerr << "{\"level\":\"" << level << "\",\"msg\":\"" << message << "\"" << extra << "}"
            << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  taskboard::server::SchedulerServerOptions options;
  std::string durability = "sync";
  std::string port_file;
  bool memory = false;
  std::string metrics_listen;
  std::string metrics_port_file;

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
  app.add_option("--heartbeat-interval-ms", options.engine.heartbeat_interval_ms,
                 "How often workers heartbeat (sent to them on connect)")
      ->envname("TASKBOARD_HEARTBEAT_INTERVAL_MS")
      ->capture_default_str();
  app.add_option("--scheduling-timeout-ms", options.engine.scheduling_timeout_ms,
                 "A ready task whose agent no connected worker offers fails after this")
      ->envname("TASKBOARD_SCHEDULING_TIMEOUT_MS")
      ->capture_default_str();
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
  app.add_option("--metrics-listen", metrics_listen,
                 "Serve Prometheus /metrics, /healthz and /readyz over HTTP on HOST:PORT "
                 "(port 0: any free); empty: off")
      ->envname("TASKBOARD_METRICS_LISTEN");
  app.add_option("--metrics-port-file", metrics_port_file,
                 "With --metrics-listen: write the metrics port chosen to this file")
      ->envname("TASKBOARD_METRICS_PORT_FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (memory) {
    options.data_dir.clear();
  } else if (options.data_dir.empty()) {
    options.data_dir = "taskboard-data";
  }
  options.durability = *taskboard::store::ParseDurability(durability);
  taskboard::metrics::MetricsHttpOptions http_options;
  if (absl::Status flags =
          taskboard::metrics::CheckMetricsFlags(metrics_listen, metrics_port_file, http_options);
      !flags.ok()) {
    std::cerr << "taskboard-scheduler: " << flags.message() << "\n";
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
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<taskboard::server::SchedulerServer>> server =
      taskboard::server::SchedulerServer::Create(options);
  if (!server.ok()) {
    std::cerr << "taskboard-scheduler: " << server.status().message() << "\n";
    return 1;
  }
  int port = (*server)->port();
  std::string where = options.data_dir.empty() ? "memory" : options.data_dir;
  Log("info", "scheduler serving",
      ",\"port\":" + std::to_string(port) + ",\"listen\":\"" + options.listen_address +
          "\",\"data_dir\":\"" + where + "\",\"durability\":\"" + durability + "\"");
  // Before the gRPC port file: whoever waits for that one finds this one too.
  std::unique_ptr<taskboard::metrics::MetricsHttpServer> http;
  if (!metrics_listen.empty()) {
    taskboard::server::SchedulerServer* serving = server->get();
    http_options.readiness = [serving] { return serving->Readiness(); };
    absl::StatusOr<std::unique_ptr<taskboard::metrics::MetricsHttpServer>> started =
        taskboard::metrics::ServeMetrics(&registry, std::move(http_options), metrics_port_file);
    if (!started.ok()) {
      std::cerr << "taskboard-scheduler: cannot serve metrics on '" << metrics_listen
                << "': " << started.status().message() << "\n";
      return 1;
    }
    http = *std::move(started);
    Log("info", "serving metrics",
        ",\"port\":" + std::to_string(http->port()) + ",\"listen\":\"" + metrics_listen + "\"");
  }
  if (!port_file.empty() &&
      !taskboard::WriteFileAtomically(port_file, std::to_string(port) + "\n")) {
    std::cerr << "taskboard-scheduler: cannot write the port file " << port_file << "\n";
    return 1;
  }
  int received = 0;
  sigwait(&signals, &received);
  Log("info", "scheduler shutting down", ",\"signal\":" + std::to_string(received));
  (*server)->Shutdown();
  if (http != nullptr) http->Shutdown();
  return 0;
}
