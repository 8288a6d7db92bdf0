#ifndef TASKBOARD_SCHEDULER_HA_CHECKPOINT_H_
#define TASKBOARD_SCHEDULER_HA_CHECKPOINT_H_

// A consistent copy of a replica's RocksDB (rocksdb::Checkpoint: SST files
// hard-linked, the rest copied, the WAL included rather than flushed) with
// the log position it holds, for a follower too far behind the leader's log
// to catch up from it: the leader streams the files, the follower installs
// them and continues from the position.
//
// Thread safety: CreateRocksDbCheckpoint may run next to the database's
// writer.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/ha/log_position.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace taskboard::store {
class Store;
}  // namespace taskboard::store

namespace taskboard::ha {

struct CheckpointInfo {
  std::string dir;
  LogPosition position;  // of the last batch the checkpoint holds
  struct File {
    std::string name;  // relative to dir
    uint64_t size = 0;
  };
  std::vector<File> files;
};

// What makes checkpoints on the leader: its store (through the store's
// replication hook) or, in tests, a ReplicaDb.
class CheckpointSource {
 public:
  virtual ~CheckpointSource() = default;
  // Creates a checkpoint in `dir`, which must not exist. INTERNAL with
  // RocksDB's message on failure.
  virtual absl::StatusOr<CheckpointInfo> CreateCheckpoint(const std::string& dir) = 0;
};

// Checkpoints `db` into `dir` (which must not exist) and reads the position
// it holds by opening it read-only. INTERNAL with RocksDB's message;
// DATA_LOSS when its position does not parse.
absl::StatusOr<CheckpointInfo> CreateRocksDbCheckpoint(rocksdb::DB& db, const std::string& dir);

// The files of the checkpoint in `dir` and the position it holds ((0, 0)
// for a store that never replicated), read by opening it read-only.
// INTERNAL with RocksDB's message; DATA_LOSS when its position does not
// parse.
absl::StatusOr<CheckpointInfo> DescribeCheckpoint(const std::string& dir);

// Checkpoints through the Store interface (store::Store::Checkpoint), so on
// any scheduler, replicated or not: what `taskboard admin backup` streams.
class StoreCheckpointSource final : public CheckpointSource {
 public:
  explicit StoreCheckpointSource(store::Store* store) : store_(store) {}  // outlives this
  absl::StatusOr<CheckpointInfo> CreateCheckpoint(const std::string& dir) override;

 private:
  store::Store* const store_;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_CHECKPOINT_H_
