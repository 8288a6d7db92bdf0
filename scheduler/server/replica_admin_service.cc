#include "scheduler/server/replica_admin_service.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/synchronization/notification.h"
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
  proto.set_may_have_lost_writes(status.may_have_lost_writes);
  proto.set_lost_writes(status.lost_writes);
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

namespace {

// Switchover's reactor: the leader resigns once the answer left (OnDone),
// so that the caller learns the handover began before this process exits.
class SwitchoverReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit SwitchoverReactor(std::shared_ptr<absl::Notification> replied)
      : replied_(std::move(replied)) {}
  void OnDone() override {
    replied_->Notify();
    delete this;
  }

 private:
  const std::shared_ptr<absl::Notification> replied_;
};

}  // namespace

ReplicaRole* ReplicaAdminService::Admit(grpc::CallbackServerContext* context,
                                        absl::string_view method,
                                        grpc::ServerUnaryReactor* reactor) {
  absl::StatusOr<auth::Caller> caller = gate_->Authenticate(*context, method);
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return nullptr;
  }
  ReplicaRole* role = role_.load();
  if (role == nullptr) {
    reactor->Finish(ToGrpcStatus(
        absl::UnavailableError("this replica is still starting; ask again in a moment")));
  }
  return role;
}

grpc::ServerUnaryReactor* ReplicaAdminService::GetReplicaStatus(
    grpc::CallbackServerContext* context, const ha::v1::GetReplicaStatusRequest* /*request*/,
    ha::v1::ReplicaStatus* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const ReplicaRole* role = Admit(context, auth::kReplicaStatusMethod, reactor);
  if (role == nullptr) return reactor;
  *response = ReplicaStatusProto(role->Status(), absl::Now());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* ReplicaAdminService::Switchover(grpc::CallbackServerContext* context,
                                                          const ha::v1::SwitchoverRequest* request,
                                                          ha::v1::SwitchoverResponse* response) {
  auto replied = std::make_shared<absl::Notification>();
  auto* reactor = new SwitchoverReactor(replied);
  ReplicaRole* role = Admit(context, auth::kSwitchoverMethod, reactor);
  if (role == nullptr) return reactor;
  role->Switchover(
      request->to(),
      [reactor, response](absl::StatusOr<Handover> handover) {
        if (!handover.ok()) {
          reactor->Finish(ToGrpcStatus(handover.status()));
          return;
        }
        response->set_from(handover->from);
        response->set_to(handover->to);
        response->set_epoch(handover->epoch);
        response->set_index(handover->index);
        reactor->Finish(grpc::Status::OK);
      },
      std::move(replied));
  return reactor;
}

grpc::ServerUnaryReactor* ReplicaAdminService::PromoteReplica(
    grpc::CallbackServerContext* context, const ha::v1::PromoteReplicaRequest* request,
    ha::v1::PromoteReplicaResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  ReplicaRole* role = Admit(context, auth::kPromoteReplicaMethod, reactor);
  if (role == nullptr) return reactor;
  role->PromoteByForce(request->force(),
                       [reactor, response, role](absl::StatusOr<ForcedPromotion> promoted) {
                         if (!promoted.ok()) {
                           reactor->Finish(ToGrpcStatus(promoted.status()));
                           return;
                         }
                         response->set_replica_id(role->Status().replica_id);
                         response->mutable_applied()->set_epoch(promoted->applied.epoch);
                         response->mutable_applied()->set_index(promoted->applied.index);
                         for (const std::string& member : promoted->in_sync_before)
                           response->add_in_sync_before(member);
                         reactor->Finish(grpc::Status::OK);
                       });
  return reactor;
}

}  // namespace taskboard::server
