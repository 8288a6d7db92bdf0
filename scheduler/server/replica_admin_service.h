#ifndef TASKBOARD_SCHEDULER_SERVER_REPLICA_ADMIN_SERVICE_H_
#define TASKBOARD_SCHEDULER_SERVER_REPLICA_ADMIN_SERVICE_H_

// `taskboard admin ha status`: each replica of a replicated scheduler says
// what it is (leader or follower, its term, how far it applied, the in-sync
// set and its followers' progress when it leads;
// docs/high-availability.md#operating-replicas). Answered by followers too
// (it is about the replica, not the cluster's state), with an admin token.
// And failover by hand (docs/operations.md#failing-over-by-hand):
// `admin ha switchover` asks the leader, `admin ha promote` the follower.
//
// Thread safety: safe for concurrent use; the role is set once it started.

#include <atomic>

#include "scheduler/ha/replication.grpc.pb.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/replica_role.h"

namespace taskboard::server {

// The answer for one replica's status.
ha::v1::ReplicaStatus ReplicaStatusProto(const ReplicaStatus& status, absl::Time now);

class ReplicaAdminService final : public ha::v1::ReplicaAdmin::CallbackService {
 public:
  // `gate` outlives the service.
  explicit ReplicaAdminService(const CallGate* gate) : gate_(gate) {}

  // Once the role started; it outlives the server's calls.
  void Set(ReplicaRole* role) { role_.store(role); }

  grpc::ServerUnaryReactor* GetReplicaStatus(grpc::CallbackServerContext* context,
                                             const ha::v1::GetReplicaStatusRequest* request,
                                             ha::v1::ReplicaStatus* response) override;
  // Both answered from the role's thread (replica_role.h).
  grpc::ServerUnaryReactor* Switchover(grpc::CallbackServerContext* context,
                                       const ha::v1::SwitchoverRequest* request,
                                       ha::v1::SwitchoverResponse* response) override;
  grpc::ServerUnaryReactor* PromoteReplica(grpc::CallbackServerContext* context,
                                           const ha::v1::PromoteReplicaRequest* request,
                                           ha::v1::PromoteReplicaResponse* response) override;

 private:
  // The role, or the reason the call cannot be served (it finished
  // `reactor` with that); null then.
  ReplicaRole* Admit(grpc::CallbackServerContext* context, absl::string_view method,
                     grpc::ServerUnaryReactor* reactor);

  const CallGate* const gate_;
  std::atomic<ReplicaRole*> role_{nullptr};
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_REPLICA_ADMIN_SERVICE_H_
