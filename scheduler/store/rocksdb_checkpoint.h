#ifndef TASKBOARD_SCHEDULER_STORE_ROCKSDB_CHECKPOINT_H_
#define TASKBOARD_SCHEDULER_STORE_ROCKSDB_CHECKPOINT_H_

// A consistent copy of an open RocksDB database (rocksdb::Checkpoint): SST
// files hard-linked when `dir` is on the same filesystem, the rest copied.
// Used by the store's own Checkpoint (backups) and by replication's
// checkpoints for followers (scheduler/ha/checkpoint.h).
//
// Thread safety: may run next to the database's writer.

#include <string>

#include "absl/status/status.h"

namespace rocksdb {
class DB;
}  // namespace rocksdb

namespace taskboard::store {

// Checkpoints `db` into `dir`, which must not exist. With `flush_first` the
// memtables are flushed into SST files first; without it the WAL is copied
// instead, which costs the writer nothing but needs writes to go to a WAL
// (not so under --durability none). INTERNAL with RocksDB's message.
absl::Status CheckpointRocksDb(rocksdb::DB& db, const std::string& dir, bool flush_first);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_ROCKSDB_CHECKPOINT_H_
