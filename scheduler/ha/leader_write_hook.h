#ifndef TASKBOARD_SCHEDULER_HA_LEADER_WRITE_HOOK_H_
#define TASKBOARD_SCHEDULER_HA_LEADER_WRITE_HOOK_H_

// The leader's end of replication inside its RocksDB store
// (store::RocksDbWriteHook): every committed store batch gets the next log
// position of this leader's epoch, put in the same atomic batch, and once
// written goes into the ReplicaLog for the followers. It also makes the
// checkpoints a follower bootstraps from, of the store's own database.
//
// An empty batch (nothing to replicate) gets no position and no entry.
//
// Threading: the store calls it from its one writer; CreateCheckpoint and
// the accessors from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/checkpoint.h"
#include "scheduler/ha/replica_log.h"
#include "scheduler/store/rocksdb_store.h"

namespace taskboard::ha {

class LeaderWriteHook final : public store::RocksDbWriteHook, public CheckpointSource {
 public:
  // Batches are numbered in `epoch` (the leader key's create_revision);
  // `log` outlives the store.
  LeaderWriteHook(uint64_t epoch, ReplicaLog* log) : epoch_(epoch), log_(log) {}

  // Reads the store's position and restarts the log after it.
  void Opened(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& handles) override;
  absl::Status BeforeWrite(rocksdb::WriteBatch& batch) override;
  void AfterWrite(const rocksdb::WriteBatch& batch) override;

  // FAILED_PRECONDITION before the store opened.
  absl::StatusOr<CheckpointInfo> CreateCheckpoint(const std::string& dir) override;

  // The position of the last batch written (what followers must hold for
  // it to be acknowledged).
  LogPosition last() const;
  // The store's column families as "name:id", for the follower handshake.
  std::vector<std::string> ColumnFamilies() const;
  // Set when Opened could not read the stored position (every write then
  // fails with it).
  absl::Status open_status() const;

 private:
  const uint64_t epoch_;
  ReplicaLog* const log_;
  mutable absl::Mutex mu_;
  rocksdb::DB* db_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_ ABSL_GUARDED_BY(mu_);
  absl::Status open_status_ ABSL_GUARDED_BY(mu_);
  LogPosition last_ ABSL_GUARDED_BY(mu_);
  // Assigned by BeforeWrite, committed by AfterWrite (0: the batch is empty).
  uint64_t pending_index_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LEADER_WRITE_HOOK_H_
