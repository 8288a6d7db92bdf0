#ifndef TASKBOARD_SCHEDULER_SERVER_REPLICA_SERVICE_SWITCH_H_
#define TASKBOARD_SCHEDULER_SERVER_REPLICA_SERVICE_SWITCH_H_

// The ReplicaService a replica registers on its gRPC port before it knows
// whether it will lead (a gRPC server's services are fixed when it starts):
// it answers every Follow and FetchCheckpoint with UNAVAILABLE (NotLeader)
// until the replica is promoted and sets the leader's service
// (ha::LeaderReplicaService), then passes every call to it. Every call is
// admitted first like a client's (CallGate): with --auth-tokens only an admin
// token may replicate, since a follower receives every tenant's state.
//
// Thread safety: safe for concurrent use; the service set outlives the
// server's shutdown.

#include <atomic>

#include "scheduler/ha/replica_service.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"

namespace taskboard::server {

class ReplicaServiceSwitch final : public ha::v1::ReplicaService::CallbackService {
 public:
  // `handle` (for the NotLeader answer) and `gate` outlive the switch.
  ReplicaServiceSwitch(const EngineHandle* handle, const CallGate* gate)
      : handle_(handle), gate_(gate) {}

  // Once, on promotion.
  void Set(ha::LeaderReplicaService* service) { service_.store(service); }

  grpc::ServerBidiReactor<ha::v1::FollowRequest, ha::v1::FollowResponse>* Follow(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<ha::v1::CheckpointChunk>* FetchCheckpoint(
      grpc::CallbackServerContext* context, const ha::v1::FetchCheckpointRequest* request) override;

 private:
  const EngineHandle* const handle_;
  const CallGate* const gate_;
  std::atomic<ha::LeaderReplicaService*> service_{nullptr};
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_REPLICA_SERVICE_SWITCH_H_
