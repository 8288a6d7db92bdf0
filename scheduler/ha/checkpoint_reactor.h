#ifndef TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_
#define TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_

// One checkpoint stream: makes a checkpoint of the store, sends the manifest
// and then every file in chunks, each file closed by its size and SHA-256,
// and removes the checkpoint. Two callers: a follower's FetchCheckpoint on
// the leader, where the replication log is pinned from its current end
// before the checkpoint and the pin left for `pin` after it, so the follower
// can continue from the checkpoint's position; and `taskboard admin backup`
// (no log). The file reads run on a thread of the transfer's own (reactions
// must not block); it hands one chunk at a time to the stream and calls
// Finish as its last act.

#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/replica_service.h"

namespace taskboard::ha {

struct CheckpointStreamOptions {
  // Where the checkpoint is made (and removed after the transfer); on the
  // store's filesystem, so that SST files are hard links, not copies.
  std::string dir;
  size_t chunk_bytes = 1 << 20;
  // How long after the transfer the log keeps the entries after the
  // checkpoint, for its follower to continue from.
  absl::Duration pin = absl::Minutes(1);
  // Who receives it, for the log: "a follower", "a backup".
  std::string recipient = "a follower";
  // Called once when the stream is over, whatever its outcome.
  std::function<void()> done;
};

class CheckpointReactor final : public grpc::ServerWriteReactor<v1::CheckpointChunk> {
 public:
  // `log`: the leader's replication log to pin, or null (a backup). `log`
  // and `checkpoints` outlive the stream.
  CheckpointReactor(CheckpointStreamOptions options, ReplicaLog* log,
                    CheckpointSource* checkpoints);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // The transfer (the thread's body); its status ends the stream.
  absl::Status Transfer();
  // Waits for the write in flight, then writes `chunk`; CANCELLED when the
  // stream is over.
  absl::Status Send(v1::CheckpointChunk chunk);
  absl::Status SendFile(const std::string& dir, const std::string& name);

  const CheckpointStreamOptions options_;
  ReplicaLog* const log_;
  CheckpointSource* const checkpoints_;
  v1::CheckpointChunk chunk_;  // owned by the write in flight
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool over_ ABSL_GUARDED_BY(mu_) = false;  // cancelled, or a write failed
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_CHECKPOINT_REACTOR_H_
