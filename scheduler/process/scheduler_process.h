#ifndef TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_PROCESS_H_
#define TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_PROCESS_H_

// A running `taskboard-scheduler`: the gRPC server (which owns the store and
// the engine, scheduler/server/scheduler_server.h), the metrics it keeps,
// the metrics port (--metrics-listen) and the HTTP API and console
// (--http-listen), and the signals that stop it or make it re-read its
// files. main() builds one from a SchedulerSetup (scheduler_setup.h), waits
// for SIGTERM or SIGINT and shuts it down.
//
// Not server::SchedulerServer: that one is the gRPC port alone, which tests
// start in-process; this one is what the binary adds around it.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/blocked_signals.h"
#include "common/metrics/metrics_http.h"
#include "common/metrics/registry.h"
#include "common/otel/otel_metrics.h"
#include "common/otel/tracing.h"
#include "scheduler/process/scheduler_setup.h"
#include "scheduler/server/scheduler_server.h"
#include "scheduler/web/api_server.h"

namespace taskboard::process {

class SchedulerProcess {
 public:
  // Blocks SIGTERM, SIGINT and SIGHUP (before any thread starts, so in every
  // thread; common/blocked_signals.h); opens the store and starts serving
  // gRPC; logs "scheduler serving"; serves the metrics port, then the HTTP
  // API (writing --http-port-file); writes --port-file last, so whoever waits
  // for it finds the other ports too. An error is logged as fatal and
  // returned: the server cannot start (FAILED_PRECONDITION: the data
  // directory is locked; UNAVAILABLE: the address cannot be bound), a port
  // cannot be served, or a port file cannot be written.
  static absl::StatusOr<std::unique_ptr<SchedulerProcess>> BuildAndStart(SchedulerSetup setup);

  SchedulerProcess(const SchedulerProcess&) = delete;
  SchedulerProcess& operator=(const SchedulerProcess&) = delete;

  // Waits for SIGTERM or SIGINT and returns it (0 if waiting failed). On
  // each SIGHUP meanwhile it re-reads --llm-limits and --auth-tokens,
  // keeping what is in force when a file has a mistake, and closes the
  // streams whose token is no longer admitted (docs/security.md#rotating-tokens).
  int WaitForShutdownSignal();

  // Logs "scheduler shutting down" with `signal`; stops the HTTP API first,
  // so its open streams and calls end before the gRPC server they call
  // stops, then the metrics port, then the gRPC server (which drains the
  // engine and closes the store); logs "scheduler stopped".
  void Shutdown(int signal);

 private:
  explicit SchedulerProcess(SchedulerSetup setup);

  absl::Status StartHttpApi();
  // host:port of the HTTP API for a replica's leader key (empty: no API, or
  // a wildcard --http-listen: give --ha-advertise-http).
  std::string HttpAddress() const;
  void RereadFiles();

  // Declared in the order they are made; destroyed the other way round.
  BlockedSignals signals_;
  SchedulerSetup setup_;
  // Kept even without --metrics-listen: the hooks are cheap and the code
  // path stays the same.
  metrics::Registry registry_;
  otel::OtelExportMetrics otel_metrics_;
  // Before the server, whose engine makes spans with its tracer until it
  // stops; shut down after it (Shutdown).
  std::unique_ptr<otel::Tracing> tracing_;
  std::unique_ptr<server::SchedulerServer> server_;
  std::unique_ptr<metrics::MetricsHttpServer> metrics_http_;
  std::unique_ptr<web::ApiServer> http_api_;
};

}  // namespace taskboard::process

#endif  // TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_PROCESS_H_
