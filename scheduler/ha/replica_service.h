#ifndef TASKBOARD_SCHEDULER_HA_REPLICA_SERVICE_H_
#define TASKBOARD_SCHEDULER_HA_REPLICA_SERVICE_H_

// The leader's ReplicaService (replication.proto): followers connect to it
// to stream the replication log (FollowReactor) and to fetch checkpoints
// (CheckpointReactor). A thin gRPC binding over ReplicaLog, ReplicaProgress
// and a CheckpointSource; it holds no replication state of its own.
//
// Threading: gRPC's callback threads; Close from any thread. The service
// must outlive the server's shutdown.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/ha/checkpoint.h"
#include "scheduler/ha/replica_log.h"
#include "scheduler/ha/replica_progress.h"
#include "scheduler/ha/replication.grpc.pb.h"

namespace taskboard::ha {

struct LeaderReplicaServiceOptions {
  // This leader's epoch: a follower that has seen a newer one is refused.
  uint64_t epoch = 0;
  // The leader store's column families ("name:id"); a follower with others
  // bootstraps from a checkpoint.
  std::vector<std::string> column_families;
  // Where checkpoints are made (each removed after its transfer); on the
  // store's filesystem, so that SST files are hard links, not copies.
  std::string checkpoint_dir;
  size_t max_entries_per_message = 512;
  size_t max_bytes_per_message = 4 << 20;
  size_t checkpoint_chunk_bytes = 1 << 20;
  // How long after a checkpoint transfer the log keeps the entries after
  // the checkpoint, for its follower to continue from.
  absl::Duration checkpoint_pin = absl::Minutes(1);
};

class FollowReactor;

class LeaderReplicaService final : public v1::ReplicaService::CallbackService {
 public:
  // Everything given outlives the service.
  LeaderReplicaService(LeaderReplicaServiceOptions options, ReplicaLog* log,
                       ReplicaProgress* progress, CheckpointSource* checkpoints);

  grpc::ServerBidiReactor<v1::FollowRequest, v1::FollowResponse>* Follow(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<v1::CheckpointChunk>* FetchCheckpoint(
      grpc::CallbackServerContext* context, const v1::FetchCheckpointRequest* request) override;

  // Ends every Follow stream with UNAVAILABLE and refuses new ones: this
  // replica stepped down, and its followers must look for the new leader.
  void Close();

  // For FollowReactor: false once closed.
  bool Register(FollowReactor* reactor);
  void Unregister(FollowReactor* reactor);

 private:
  const LeaderReplicaServiceOptions options_;
  ReplicaLog* const log_;
  ReplicaProgress* const progress_;
  CheckpointSource* const checkpoints_;
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::set<FollowReactor*> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_REPLICA_SERVICE_H_
