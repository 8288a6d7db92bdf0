#ifndef TASKBOARD_SCHEDULER_HA_REPLICA_DB_H_
#define TASKBOARD_SCHEDULER_HA_REPLICA_DB_H_

// A follower's RocksDB while it replicates: the scheduler's store directory
// opened with the store's column families in the store's order (so the
// leader's batches, which name families by id, land in the same families),
// written only with the leader's batches, each with the follower's log
// position added in the same atomic write. When the replica is promoted it
// closes this and opens the directory as the scheduler's RocksDB store.
//
// Thread safety: safe for concurrent use (RocksDB's); Apply from one thread.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/ha/checkpoint.h"
#include "scheduler/ha/log_position.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace taskboard::ha {

struct ReplicaDbOptions {
  std::string path;  // created when missing
  // fsync the WAL when Apply is asked to sync (the store's `sync`
  // durability); false: the WAL is written, not synced (`wal`).
  bool fsync = true;
};

class ReplicaDb final : public CheckpointSource {
 public:
  // FAILED_PRECONDITION when another process holds the database;
  // INTERNAL with RocksDB's message otherwise.
  static absl::StatusOr<std::unique_ptr<ReplicaDb>> Open(const ReplicaDbOptions& options);
  ~ReplicaDb() override;

  // Writes a leader batch (rocksdb::WriteBatch::Data()) with `position` put
  // in the same batch. With `sync`, this write and every earlier one are
  // durable when it returns (one fsync for a group). INVALID_ARGUMENT when
  // the bytes are not a batch or name a family this database lacks;
  // INTERNAL for I/O errors.
  absl::Status Apply(const std::string& batch, LogPosition position, bool sync);

  // Makes every write so far durable (fsyncs the WAL) when the options ask
  // for fsync; INTERNAL on I/O errors.
  absl::Status Sync();

  // The position of the last batch applied ((0, 0) when none); DATA_LOSS
  // when the stored one does not parse.
  absl::StatusOr<LogPosition> Position() const;

  // The column families as "name:id", in id order, for the leader to compare
  // with its own before it sends batches.
  std::vector<std::string> ColumnFamilies() const;

  absl::StatusOr<CheckpointInfo> CreateCheckpoint(const std::string& dir) override;

  // For tests: a value as the scheduler's store would read it.
  absl::StatusOr<std::optional<std::string>> Get(int column, const std::string& key) const;

 private:
  ReplicaDb(std::unique_ptr<rocksdb::DB> db, std::vector<rocksdb::ColumnFamilyHandle*> handles,
            bool fsync);

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // indexed by store::Column
  const bool fsync_;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_REPLICA_DB_H_
