#include "scheduler/server/replica_service_switch.h"

#include "scheduler/auth/method_roles.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {
namespace {

class RefusedFollow final
    : public grpc::ServerBidiReactor<ha::v1::FollowRequest, ha::v1::FollowResponse> {
 public:
  explicit RefusedFollow(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

class RefusedCheckpoint final : public grpc::ServerWriteReactor<ha::v1::CheckpointChunk> {
 public:
  explicit RefusedCheckpoint(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerBidiReactor<ha::v1::FollowRequest, ha::v1::FollowResponse>*
ReplicaServiceSwitch::Follow(grpc::CallbackServerContext* context) {
  if (absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, auth::kFollowMethod, nullptr);
      !caller.ok()) {
    return new RefusedFollow(caller.status());
  }
  if (ha::LeaderReplicaService* service = service_.load(); service != nullptr) {
    return service->Follow(context);
  }
  return new RefusedFollow(NotLeaderError(handle_->leader()));
}

grpc::ServerWriteReactor<ha::v1::CheckpointChunk>* ReplicaServiceSwitch::FetchCheckpoint(
    grpc::CallbackServerContext* context, const ha::v1::FetchCheckpointRequest* request) {
  if (absl::StatusOr<auth::Caller> caller =
          gate_->Admit(*context, auth::kFetchCheckpointMethod, nullptr);
      !caller.ok()) {
    return new RefusedCheckpoint(caller.status());
  }
  if (ha::LeaderReplicaService* service = service_.load(); service != nullptr) {
    return service->FetchCheckpoint(context, request);
  }
  return new RefusedCheckpoint(NotLeaderError(handle_->leader()));
}

}  // namespace taskboard::server
