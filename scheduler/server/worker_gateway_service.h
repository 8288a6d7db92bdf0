#ifndef TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_
#define TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_

// The worker API (taskboard.v1.WorkerGateway): one bidi stream per worker.
// Each stream is a reactor that forwards what it reads to the engine and
// writes what the engine sends through an outbox with one write in flight
// (the route_guide callback pattern). The first message must be Hello.
// A stream is admitted (call_gate.h: worker or admin token) before it starts.
// RunState, the one unary method, reads and writes a held task's run storage.

#include "scheduler/engine/engine.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard::server {

class WorkerGatewayService final : public v1::WorkerGateway::CallbackService {
 public:
  // Serves `handle`'s engine once Admit (`gate`, which consults the same
  // handle) let the stream in. Both outlive the service.
  WorkerGatewayService(const EngineHandle* handle, const CallGate* gate)
      : handle_(handle), gate_(gate) {}

  grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse>* Connect(
      grpc::CallbackServerContext* context) override;
  // A task's run storage (docs/mcp.md#flowstate): admitted like Connect,
  // then answered by the engine once the batch holding the write is written.
  grpc::ServerUnaryReactor* RunState(grpc::CallbackServerContext* context,
                                     const v1::RunStateRequest* request,
                                     v1::RunStateResponse* response) override;

 private:
  const EngineHandle* handle_;
  const CallGate* gate_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_WORKER_GATEWAY_SERVICE_H_
