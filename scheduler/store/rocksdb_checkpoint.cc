#include "scheduler/store/rocksdb_checkpoint.h"

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/checkpoint.h"

namespace taskboard::store {

absl::Status CheckpointRocksDb(rocksdb::DB& db, const std::string& dir, bool flush_first) {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status status = rocksdb::Checkpoint::Create(&db, &raw);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot start a checkpoint: ", status.ToString()));
  }
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush: 0 flushes always; UINT64_MAX never, copying the WAL.
  status = checkpoint->CreateCheckpoint(dir, flush_first ? 0 : UINT64_MAX);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot checkpoint into ", dir, ": ", status.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace taskboard::store
