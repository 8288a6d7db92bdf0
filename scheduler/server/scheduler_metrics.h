#ifndef TASKBOARD_SCHEDULER_SERVER_SCHEDULER_METRICS_H_
#define TASKBOARD_SCHEDULER_SERVER_SCHEDULER_METRICS_H_

// The scheduler's gRPC-level metric: taskboard_scheduler_grpc_requests_total
// {method, code}, counted by a server interceptor when a call sends its
// status, for every service on the port (Scheduler, WorkerGateway, health,
// reflection). The engine's own metrics live in engine/core/engine_metrics.h.
//
// Thread-safe: the interceptor runs on gRPC's threads; a count costs the
// family's Add (a mutex and a map lookup) plus an atomic add.

#include <memory>

#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/registry.h"
#include "grpcpp/support/server_interceptor.h"

namespace taskboard::server {

class GrpcRequestMetrics {
 public:
  // Registers the family in `registry`, which must outlive this object.
  explicit GrpcRequestMetrics(metrics::Registry& registry);

  // `method` as gRPC names it ("/taskboard.v1.Scheduler/SubmitRun").
  void Count(const char* method, grpc::StatusCode code);

  // An interceptor factory for ServerBuilder::experimental()
  // .SetInterceptorCreators; this object must outlive the server.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> InterceptorFactory();

 private:
  metrics::Family<metrics::Counter>& requests_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_SCHEDULER_METRICS_H_
