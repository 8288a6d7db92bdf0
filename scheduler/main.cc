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
// Usage errors (bad flags, files the flags name that cannot be read or have
// a mistake) are plain "taskboard-scheduler: ..." lines and exit code 2.
//
// With --ha-etcd-endpoints it is one replica of a replicated scheduler
// (docs/high-availability.md): a leader that loses its term logs "stepped
// down: ..." and exits with code 3 (server::kSteppedDownExitCode), for its
// supervisor to start it again as a follower.
//
// Security (docs/security.md): --auth-tokens requires bearer tokens (the file
// is re-read on SIGHUP), --tls-* serve TLS or mTLS, --max-request-bytes caps
// client requests. A --listen address other machines can reach needs
// --auth-tokens, or --insecure to say the network is trusted.
//
// The flags are in scheduler/process/scheduler_flags.cc, what they turn into
// in scheduler_setup.cc, and the running scheduler in scheduler_process.cc.

#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "scheduler/process/scheduler_flags.h"
#include "scheduler/process/scheduler_options.h"
#include "scheduler/process/scheduler_process.h"
#include "scheduler/process/scheduler_setup.h"

int main(int argc, char** argv) {
  namespace process = taskboard::process;
  process::SchedulerOptions options;
  if (std::optional<int> exit_code = process::ParseSchedulerFlags(argc, argv, options)) {
    return *exit_code;  // --help, --version, or a usage error CLI11 printed
  }
  absl::StatusOr<process::SchedulerSetup> setup = process::PrepareScheduler(options);
  if (!setup.ok()) {
    std::cerr << "taskboard-scheduler: " << setup.status().message() << "\n";
    return 2;
  }
  // From here on an error is logged as fatal, and the exit code is 1.
  absl::StatusOr<std::unique_ptr<process::SchedulerProcess>> scheduler =
      process::SchedulerProcess::BuildAndStart(*std::move(setup));
  if (!scheduler.ok()) return 1;
  const int signal = (*scheduler)->WaitForShutdownSignal();
  (*scheduler)->Shutdown(signal);
  return 0;
}
