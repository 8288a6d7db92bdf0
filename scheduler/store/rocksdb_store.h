#ifndef TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_
#define TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_

// The RocksDB Store: one database per scheduler, one column family per
// Column. This file (with replication in scheduler/ha, through its hook) is
// the only place outside tests that knows RocksDB.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace taskboard::store {

// Replication's hook into the RocksDB store (scheduler/ha): the one place
// where it sees the database and each committed batch's bytes. Without a
// hook (the default) the store behaves exactly as before.
//
// Threading: Opened once, before the store is returned; BeforeWrite and
// AfterWrite on the thread that calls Write (the store has one writer).
class RocksDbWriteHook {
 public:
  virtual ~RocksDbWriteHook() = default;
  // The opened database and its handles, indexed by Column, valid until the
  // store closes. The hook may read and checkpoint the database, never write.
  virtual void Opened(rocksdb::DB& db,
                      const std::vector<rocksdb::ColumnFamilyHandle*>& handles) = 0;
  // Before `batch` (the store batch turned into RocksDB's) is written: may
  // add to it (the replication log position, in the same atomic batch). An
  // error fails the write before anything is applied.
  virtual absl::Status BeforeWrite(rocksdb::WriteBatch& batch) = 0;
  // After `batch` was written as durably as the store's durability says;
  // `batch.Data()` are the bytes a replica applies.
  virtual void AfterWrite(const rocksdb::WriteBatch& batch) = 0;
};

struct RocksDbStoreOptions {
  // Directory of the database; created when missing.
  std::string path;
  Durability durability = Durability::kSync;
  // Block cache and write buffer budget hints (bytes).
  size_t block_cache_bytes = 64 << 20;
  size_t write_buffer_bytes = 32 << 20;
  // This machine's boot id (stop_marker.h); empty: read it from /proc.
  std::string boot_id;
  // Replication (scheduler/ha); null: none.
  std::shared_ptr<RocksDbWriteHook> write_hook;
};

// Opens (or creates) the database with every column family.
// FAILED_PRECONDITION: another process holds the database lock (a second
// scheduler on the same data directory); INTERNAL: corruption or I/O error,
// with RocksDB's message.
absl::StatusOr<std::unique_ptr<Store>> OpenRocksDbStore(const RocksDbStoreOptions& options);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_
