#ifndef TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_
#define TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_

// One FetchCheckpoint stream on the leader: pins the replication log from its
// current end, makes a checkpoint of the store, sends the manifest and then
// every file in chunks, each file closed by its size and SHA-256, removes the
// checkpoint and leaves the pin for `checkpoint_pin`, so the follower can
// continue from the checkpoint's position. The file reads run on a thread of
// the transfer's own (reactions must not block); it hands one chunk at a
// time to the stream and calls Finish as its last act.

#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/replica_service.h"

namespace taskboard::ha {

class CheckpointReactor final : public grpc::ServerWriteReactor<v1::CheckpointChunk> {
 public:
  CheckpointReactor(const LeaderReplicaServiceOptions& options, ReplicaLog* log,
                    CheckpointSource* checkpoints);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override { delete this; }

 private:
  // The transfer (the thread's body); its status ends the stream.
  absl::Status Transfer();
  // Waits for the write in flight, then writes `chunk`; CANCELLED when the
  // stream is over.
  absl::Status Send(v1::CheckpointChunk chunk);
  absl::Status SendFile(const std::string& dir, const std::string& name);

  const LeaderReplicaServiceOptions& options_;
  ReplicaLog* const log_;
  CheckpointSource* const checkpoints_;
  v1::CheckpointChunk chunk_;  // owned by the write in flight
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool over_ ABSL_GUARDED_BY(mu_) = false;  // cancelled, or a write failed
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_
