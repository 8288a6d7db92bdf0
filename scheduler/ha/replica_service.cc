#include "scheduler/ha/replica_service.h"

#include <utility>

#include "scheduler/ha/checkpoint_reactor.h"
#include "scheduler/ha/follow_reactor.h"

namespace taskboard::ha {

LeaderReplicaService::LeaderReplicaService(LeaderReplicaServiceOptions options, ReplicaLog* log,
                                           ReplicaProgress* progress, CheckpointSource* checkpoints)
    : options_(std::move(options)), log_(log), progress_(progress), checkpoints_(checkpoints) {}

grpc::ServerBidiReactor<v1::FollowRequest, v1::FollowResponse>* LeaderReplicaService::Follow(
    grpc::CallbackServerContext* context) {
  return new FollowReactor(options_, this, log_, progress_);
}

grpc::ServerWriteReactor<v1::CheckpointChunk>* LeaderReplicaService::FetchCheckpoint(
    grpc::CallbackServerContext* context, const v1::FetchCheckpointRequest* request) {
  return new CheckpointReactor(
      CheckpointStreamOptions{.dir = options_.checkpoint_dir,
                              .chunk_bytes = options_.checkpoint_chunk_bytes,
                              .pin = options_.checkpoint_pin},
      log_, checkpoints_);
}

void LeaderReplicaService::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  // Under the lock: a stream cannot finish and be deleted meanwhile (its
  // OnDone unregisters first).
  for (FollowReactor* stream : streams_) {
    stream->FinishWith(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "this replica is no longer the leader"));
  }
}

bool LeaderReplicaService::Register(FollowReactor* reactor) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  streams_.insert(reactor);
  return true;
}

void LeaderReplicaService::Unregister(FollowReactor* reactor) {
  absl::MutexLock lock(&mu_);
  streams_.erase(reactor);
}

}  // namespace taskboard::ha
