#ifndef TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_
#define TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_

// The worker API (taskboard.v1.WorkerGateway): one bidi stream per worker.
// Each stream is a reactor that forwards what it reads to the engine and
// writes what the engine sends through an outbox with one write in flight
// (the route_guide callback pattern). The first message must be Hello.
// A stream is admitted (call_gate.h: worker or admin token) before it starts.

#include "scheduler/engine/engine.h"
#include "scheduler/server/call_gate.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard::server {

class WorkerGatewayService final : public v1::WorkerGateway::CallbackService {
 public:
  // `gate` outlives the service.
  WorkerGatewayService(engine::Engine* engine, const CallGate* gate)
      : engine_(engine), gate_(gate) {}

  grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse>* Connect(
      grpc::CallbackServerContext* context) override;

 private:
  engine::Engine* engine_;
  const CallGate* gate_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_
