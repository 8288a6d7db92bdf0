// `taskboard-worker`: runs agent tasks for a Taskboard scheduler. It loads
// the agents of --agents, connects to --scheduler, and serves until SIGTERM
// or SIGINT (or the scheduler's Drain), finishing or returning its running
// tasks within the drain grace period. Every flag has a TASKBOARD_*
// environment variable; see --help. With --metrics-listen it also serves
// /metrics, /healthz and /readyz (docs/services.md). Logs are JSON lines on
// stderr (--log-level, --log-format; docs/services.md#logs); usage errors
// (bad flags, agent or tool files) are plain "taskboard-worker: ..." lines
// and exit code 2. --token and --tls-* authenticate it to a scheduler that
// requires it (docs/security.md).
//
// The flags are in worker/process/worker_flags.cc, what they turn into in
// worker_setup.cc, and the running worker in worker_server.cc.

#include <signal.h>

#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "worker/process/signal_drain.h"
#include "worker/process/worker_flags.h"
#include "worker/process/worker_options.h"
#include "worker/process/worker_server.h"
#include "worker/process/worker_setup.h"

int main(int argc, char** argv) {
  namespace worker = taskboard::worker;
  // Writes to closed pipes and sockets must fail, not kill the worker; agents
  // get the default disposition back (see worker/base/subprocess.cc).
  signal(SIGPIPE, SIG_IGN);
  // Blocks SIGTERM and SIGINT, so before any thread starts.
  worker::SignalDrain signal_drain;

  worker::WorkerOptions options;
  if (std::optional<int> exit_code = worker::ParseWorkerFlags(argc, argv, options)) {
    return *exit_code;  // --help, --version, or a usage error CLI11 printed
  }
  absl::StatusOr<worker::WorkerSetup> setup = worker::PrepareWorker(options);
  if (!setup.ok()) {
    std::cerr << "taskboard-worker: " << setup.status().message() << "\n";
    return 2;
  }
  // From here on an error is logged as fatal, and the exit code is 1.
  absl::StatusOr<std::unique_ptr<worker::WorkerServer>> server =
      worker::WorkerServer::BuildAndStart(*std::move(setup));
  if (!server.ok()) return 1;
  return (*server)->Run(signal_drain).ok() ? 0 : 1;
}
