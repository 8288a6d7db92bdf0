#include "scheduler/server/replica_admin_service.h"

#include <string>

#include "absl/time/clock.h"
#include "scheduler/auth/method_roles.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {

ha::v1::ReplicaStatus ReplicaStatusProto(const ReplicaStatus& status, absl::Time now) {
  ha::v1::ReplicaStatus proto;
  proto.set_replica_id(status.replica_id);
  proto.set_advertise(status.advertise);
  proto.set_role(status.leading ? "leader" : "follower");
  proto.set_epoch(status.epoch);
  proto.set_leader(status.leader);
  proto.mutable_applied()->set_epoch(status.applied.epoch);
  proto.mutable_applied()->set_index(status.applied.index);
  proto.set_leader_last_index(status.leader_last_index);
  for (const std::string& member : status.in_sync) proto.add_in_sync(member);
  for (const ha::ReplicaProgress::Replica& follower : status.followers) {
    ha::v1::FollowerProgress* progress = proto.add_followers();
    progress->set_replica_id(follower.id);
    progress->set_durable_index(follower.durable_index);
    progress->set_connected(follower.connected);
    if (follower.last_ack != absl::Time()) {
      progress->set_last_ack_ms_ago(absl::ToInt64Milliseconds(now - follower.last_ack));
    }
  }
  return proto;
}

grpc::ServerUnaryReactor* ReplicaAdminService::GetReplicaStatus(
    grpc::CallbackServerContext* context, const ha::v1::GetReplicaStatusRequest* /*request*/,
    ha::v1::ReplicaStatus* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<auth::Caller> caller = gate_->Authenticate(*context, auth::kReplicaStatusMethod);
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  const ReplicaRole* role = role_.load();
  if (role == nullptr) {
    reactor->Finish(ToGrpcStatus(
        absl::UnavailableError("this replica is still starting; ask again in a moment")));
    return reactor;
  }
  *response = ReplicaStatusProto(role->Status(), absl::Now());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace taskboard::server
