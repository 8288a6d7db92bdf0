#ifndef TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_
#define TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_

// The RocksDB Store: one database per scheduler, one column family per
// Column. This file is the only place outside tests that knows RocksDB.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace taskboard::store {

struct RocksDbStoreOptions {
  // Directory of the database; created when missing.
  std::string path;
  Durability durability = Durability::kSync;
  // Block cache and write buffer budget hints (bytes).
  size_t block_cache_bytes = 64 << 20;
  size_t write_buffer_bytes = 32 << 20;
  // This machine's boot id (stop_marker.h); empty: read it from /proc.
  std::string boot_id;
};

// Opens (or creates) the database with every column family.
// FAILED_PRECONDITION: another process holds the database lock (a second
// scheduler on the same data directory); INTERNAL: corruption or I/O error,
// with RocksDB's message.
absl::StatusOr<std::unique_ptr<Store>> OpenRocksDbStore(const RocksDbStoreOptions& options);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_ROCKSDB_STORE_H_
