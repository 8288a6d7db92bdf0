#ifndef TASKBOARD_SCHEDULER_HA_CHECKPOINT_RECEIVER_H_
#define TASKBOARD_SCHEDULER_HA_CHECKPOINT_RECEIVER_H_

// A follower's side of a checkpoint transfer, without the network: the
// leader's files are written into `<data_dir>.incoming`, each one checked
// (named in the manifest, chunks in offset order, its size and SHA-256) and
// fsynced; Install then swaps the new database in: the old directory is
// renamed to `<data_dir>.old`, the new one into place, the parent directory
// fsynced, the old one removed. A crash leaves the old database, or the new
// complete one, or both renamed aside; RecoverCheckpointInstall, run before
// the database is opened, puts whichever is whole back in place.
//
// Thread safety: one thread.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/sha256.h"
#include "scheduler/ha/checkpoint.h"

namespace taskboard::ha {

class CheckpointReceiver {
 public:
  explicit CheckpointReceiver(std::string data_dir);
  ~CheckpointReceiver();  // closes a file left open; the incoming directory stays until the next
                          // Begin

  // Starts over in an empty `<data_dir>.incoming`. INVALID_ARGUMENT for a
  // file name that is not a plain name; INTERNAL on I/O errors.
  absl::Status Begin(LogPosition position, std::vector<CheckpointInfo::File> files);
  // INVALID_ARGUMENT when `name` is not in the manifest, is done already, or
  // `offset` is not where the file's data so far ends; INTERNAL on I/O.
  absl::Status Write(absl::string_view name, uint64_t offset, absl::string_view data);
  // DATA_LOSS when the size or the SHA-256 differs from what was received;
  // INVALID_ARGUMENT when `name` was not being written.
  absl::Status End(absl::string_view name, uint64_t size, absl::string_view sha256_hex);
  // Swaps the received database in (the replica's database must be closed)
  // and returns its position. FAILED_PRECONDITION when a file of the manifest
  // did not end; INTERNAL on I/O errors.
  absl::StatusOr<LogPosition> Install();

  // Where the files are written until Install: a caller may add a file of
  // its own there (a backup's BACKUP.json) to be installed with them.
  const std::string& incoming_dir() const { return incoming_; }

 private:
  struct Receiving {
    uint64_t size = 0;      // from the manifest
    uint64_t received = 0;  // bytes written so far
    bool done = false;
  };
  absl::Status CloseCurrent();

  const std::string data_dir_;
  const std::string incoming_;
  LogPosition position_;
  std::map<std::string, Receiving, std::less<>> files_;
  std::string current_;  // the file being written ("" when none)
  int fd_ = -1;
  Sha256Stream digest_;
};

// Finishes or undoes an install a crash interrupted, before `data_dir` is
// opened: with `<data_dir>` missing, `<data_dir>.old` goes back; a leftover
// `.old` next to a present `<data_dir>` is removed. INTERNAL on I/O errors.
absl::Status RecoverCheckpointInstall(const std::string& data_dir);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_CHECKPOINT_RECEIVER_H_
