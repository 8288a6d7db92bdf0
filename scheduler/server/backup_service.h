#ifndef TASKBOARD_SCHEDULER_SERVER_BACKUP_SERVICE_H_
#define TASKBOARD_SCHEDULER_SERVER_BACKUP_SERVICE_H_

// The Backup service (scheduler/ha/replication.proto) behind `taskboard
// admin backup DEST`: a consistent checkpoint of the store, taken while the
// scheduler serves, streamed file by file with each file's SHA-256
// (docs/operations.md#backup-and-restore). Admitted like every call
// (CallGate: admin role), and one backup at a time, since each holds a
// checkpoint's worth of disk until its transfer ends.
//
// Threading: gRPC's callback threads; each transfer reads its files on a
// thread of its own (ha::CheckpointReactor).

#include <atomic>
#include <string>

#include "scheduler/ha/checkpoint.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"

namespace taskboard::server {

class BackupService final : public ha::v1::Backup::CallbackService {
 public:
  // `checkpoint_dir`: where checkpoints are made, on the store's filesystem
  // (empty for a store in memory, which refuses to back up anyway); what a
  // crash left in it is removed here. Backs up `handle`'s store (a replica
  // that does not lead is refused by the gate, which consults the same
  // handle). `handle` and `gate` outlive the service.
  BackupService(const EngineHandle* handle, std::string checkpoint_dir, const CallGate* gate);

  grpc::ServerWriteReactor<ha::v1::CheckpointChunk>* Backup(
      grpc::CallbackServerContext* context, const ha::v1::BackupRequest* request) override;

  // Whether a backup is streaming now.
  bool busy() const { return busy_.load(); }

 private:
  // The published store's checkpoints.
  class HandleSource final : public ha::CheckpointSource {
   public:
    explicit HandleSource(const EngineHandle* handle) : handle_(handle) {}
    absl::StatusOr<ha::CheckpointInfo> CreateCheckpoint(const std::string& dir) override;

   private:
    const EngineHandle* const handle_;
  };
  HandleSource source_;
  const std::string checkpoint_dir_;
  const CallGate* const gate_;
  std::atomic<bool> busy_{false};
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_BACKUP_SERVICE_H_
