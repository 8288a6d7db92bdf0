#ifndef TASKBOARD_WORKER_PROCESS_WORKER_SERVER_H_
#define TASKBOARD_WORKER_PROCESS_WORKER_SERVER_H_

// A running `taskboard-worker`: its session with the scheduler, the metrics
// the session keeps, and (with --metrics-listen) the HTTP port that serves
// them with /healthz and /readyz (docs/services.md). main() builds one from a
// WorkerSetup (worker_setup.h) and runs it until it is drained.

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/metrics/metrics_http.h"
#include "common/metrics/registry.h"
#include "common/otel/otel_metrics.h"
#include "common/otel/tracing.h"
#include "worker/process/signal_drain.h"
#include "worker/process/worker_setup.h"
#include "worker/session/session.h"
#include "worker/session/worker_metrics.h"

namespace taskboard::worker {

class WorkerServer {
 public:
  // Logs the agents not offered and the start-up line, makes the tracing
  // and the session and serves the metrics port if asked. The error (logged
  // as fatal): the tracing options are unusable, or the port cannot be
  // served.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> BuildAndStart(WorkerSetup setup);

  WorkerServer(const WorkerServer&) = delete;
  WorkerServer& operator=(const WorkerServer&) = delete;

  // Serves the scheduler until the session is drained, `drain` turning
  // SIGTERM and SIGINT into a drain meanwhile; then exports the spans still
  // queued (up to kTracingShutdown) and stops serving metrics.
  // The session's error, if it stopped on one (logged as fatal).
  absl::Status Run(SignalDrain& drain);

 private:
  explicit WorkerServer(WorkerSetup setup);

  // Declared in the order they are made; destroyed the other way round.
  WorkerSetup setup_;
  // Kept even without --metrics-listen: the hooks are cheap and the session
  // stays the same either way.
  metrics::Registry registry_;
  WorkerMetrics metrics_;
  // Spans of traced assignments (docs/observability.md#worker-spans) and
  // what became of them, on /metrics.
  otel::OtelExportMetrics otel_metrics_;
  std::unique_ptr<otel::Tracing> tracing_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<metrics::MetricsHttpServer> http_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_PROCESS_WORKER_SERVER_H_
