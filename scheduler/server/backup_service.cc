#include "scheduler/server/backup_service.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "common/log/log.h"
#include "scheduler/auth/method_roles.h"
#include "scheduler/ha/checkpoint_reactor.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {
namespace {

// A backup refused before it starts.
class RefusedBackup final : public grpc::ServerWriteReactor<ha::v1::CheckpointChunk> {
 public:
  explicit RefusedBackup(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

absl::StatusOr<ha::CheckpointInfo> BackupService::HandleSource::CreateCheckpoint(
    const std::string& dir) {
  store::Store* store = handle_->store();
  if (store == nullptr) return handle_->CheckLeader();
  return ha::StoreCheckpointSource(store).CreateCheckpoint(dir);
}

BackupService::BackupService(const EngineHandle* handle, std::string checkpoint_dir,
                             const CallGate* gate)
    : source_(handle), checkpoint_dir_(std::move(checkpoint_dir)), gate_(gate) {
  if (checkpoint_dir_.empty()) return;
  // Checkpoints of transfers a crash cut short: hard links that would keep
  // old SST files on disk.
  std::error_code error;
  if (std::filesystem::exists(checkpoint_dir_, error)) {
    std::filesystem::remove_all(checkpoint_dir_, error);
    if (error) {
      log::Warn("cannot remove the checkpoints a stopped backup left")
          .With("dir", checkpoint_dir_)
          .With("error", error.message());
    }
  }
}

grpc::ServerWriteReactor<ha::v1::CheckpointChunk>* BackupService::Backup(
    grpc::CallbackServerContext* context, const ha::v1::BackupRequest* request) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, auth::kBackupMethod, request);
  if (!caller.ok()) return new RefusedBackup(caller.status());
  if (checkpoint_dir_.empty()) {
    // The store's own refusal says why (--memory).
    return new RefusedBackup(source_.CreateCheckpoint("").status());
  }
  if (busy_.exchange(true)) {
    return new RefusedBackup(absl::ResourceExhaustedError(
        "a backup of this scheduler is already running; wait for it to finish and try again"));
  }
  return new ha::CheckpointReactor(
      ha::CheckpointStreamOptions{
          .dir = checkpoint_dir_, .recipient = "a backup", .done = [this] { busy_.store(false); }},
      /*log=*/nullptr, &source_);
}

}  // namespace taskboard::server
