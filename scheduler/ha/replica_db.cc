#include "scheduler/ha/replica_db.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"
#include "scheduler/ha/column_families.h"
#include "scheduler/store/store.h"

namespace taskboard::ha {
namespace {

rocksdb::Slice ToSlice(absl::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

absl::Status FromRocks(const rocksdb::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  const std::string message = absl::StrCat(what, ": ", status.ToString());
  if (status.IsIOError() && absl::StrContains(status.ToString(), "lock")) {
    return absl::FailedPreconditionError(
        absl::StrCat(message, " (is another process using this data directory?)"));
  }
  if (status.IsInvalidArgument() || status.IsCorruption()) {
    return absl::InvalidArgumentError(message);
  }
  return absl::InternalError(message);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReplicaDb>> ReplicaDb::Open(const ReplicaDbOptions& options) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : StoreColumnFamilyNames()) {
    families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = rocksdb::DB::Open(db_options, options.path, families, &handles, &raw);
  if (!status.ok()) {
    return FromRocks(status, absl::StrCat("cannot open the replica at ", options.path));
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  db->DestroyColumnFamilyHandle(handles.front());  // default: unused, as in the store
  handles.erase(handles.begin());
  return std::unique_ptr<ReplicaDb>(
      new ReplicaDb(std::move(db), std::move(handles), options.fsync));
}

ReplicaDb::ReplicaDb(std::unique_ptr<rocksdb::DB> db,
                     std::vector<rocksdb::ColumnFamilyHandle*> handles, bool fsync)
    : db_(std::move(db)), handles_(std::move(handles)), fsync_(fsync) {}

ReplicaDb::~ReplicaDb() {
  for (rocksdb::ColumnFamilyHandle* handle : handles_) db_->DestroyColumnFamilyHandle(handle);
  db_->SyncWAL().PermitUncheckedError();
  db_->Close().PermitUncheckedError();
}

absl::Status ReplicaDb::Apply(const std::string& batch, LogPosition position, bool sync) {
  if (batch.size() < 12) {  // RocksDB's header: sequence and count
    return absl::InvalidArgumentError(absl::StrCat("replicated batch ", position.index, ": ",
                                                   batch.size(),
                                                   " bytes is not a RocksDB write batch"));
  }
  rocksdb::WriteBatch rocks_batch(batch);
  rocksdb::Status put =
      rocks_batch.Put(handles_[static_cast<int>(store::Column::kMeta)], ToSlice(kPositionKey),
                      ToSlice(EncodeLogPosition(position)));
  if (!put.ok()) return FromRocks(put, "cannot add the position to a replicated batch");
  rocksdb::WriteOptions write_options;
  write_options.sync = sync && fsync_;
  return FromRocks(db_->Write(write_options, &rocks_batch),
                   absl::StrCat("cannot apply replicated batch ", position.index));
}

absl::Status ReplicaDb::Sync() {
  if (!fsync_) return absl::OkStatus();
  return FromRocks(db_->SyncWAL(), "cannot sync the replica's WAL");
}

absl::StatusOr<LogPosition> ReplicaDb::Position() const {
  std::string value;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), handles_[static_cast<int>(store::Column::kMeta)],
               ToSlice(kPositionKey), &value);
  if (status.IsNotFound()) return LogPosition{};
  if (!status.ok()) return FromRocks(status, "cannot read the replication position");
  return DecodeLogPosition(value);
}

std::vector<std::string> ReplicaDb::ColumnFamilies() const {
  return DescribeColumnFamilies(handles_);
}

absl::StatusOr<CheckpointInfo> ReplicaDb::CreateCheckpoint(const std::string& dir) {
  return CreateRocksDbCheckpoint(*db_, dir);
}

absl::StatusOr<std::optional<std::string>> ReplicaDb::Get(int column,
                                                          const std::string& key) const {
  std::string value;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), handles_.at(column), ToSlice(key), &value);
  if (status.IsNotFound()) return std::nullopt;
  if (!status.ok()) return FromRocks(status, "cannot read");
  return value;
}

}  // namespace taskboard::ha
