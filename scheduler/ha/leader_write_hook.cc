#include "scheduler/ha/leader_write_hook.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "scheduler/ha/column_families.h"
#include "scheduler/store/store.h"

namespace taskboard::ha {
namespace {

rocksdb::Slice ToSlice(absl::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

}  // namespace

void LeaderWriteHook::Opened(rocksdb::DB& db,
                             const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  absl::MutexLock lock(&mu_);
  db_ = &db;
  handles_ = handles;
  std::string value;
  rocksdb::Status read =
      db.Get(rocksdb::ReadOptions(), handles_[static_cast<int>(store::Column::kMeta)],
             ToSlice(kPositionKey), &value);
  if (read.IsNotFound()) {
    last_ = LogPosition{};
  } else if (!read.ok()) {
    open_status_ = absl::InternalError(
        absl::StrCat("cannot read the replication position: ", read.ToString()));
  } else if (absl::StatusOr<LogPosition> position = DecodeLogPosition(value); position.ok()) {
    last_ = *position;
  } else {
    open_status_ = position.status();
  }
  if (open_status_.ok() && last_.epoch > epoch_) {
    open_status_ = absl::FailedPreconditionError(absl::StrCat(
        "the store holds entries of epoch ", last_.epoch, ", newer than this leader's ", epoch_));
  }
  log_->Reset(last_);
}

absl::Status LeaderWriteHook::BeforeWrite(rocksdb::WriteBatch& batch) {
  absl::MutexLock lock(&mu_);
  if (!open_status_.ok()) return open_status_;
  if (batch.Count() == 0) {
    pending_index_ = 0;
    return absl::OkStatus();
  }
  pending_index_ = last_.index + 1;
  rocksdb::Status put =
      batch.Put(handles_[static_cast<int>(store::Column::kMeta)], ToSlice(kPositionKey),
                ToSlice(EncodeLogPosition({epoch_, pending_index_})));
  if (!put.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot add the replication position: ", put.ToString()));
  }
  return absl::OkStatus();
}

void LeaderWriteHook::AfterWrite(const rocksdb::WriteBatch& batch) {
  LogEntry entry;
  {
    absl::MutexLock lock(&mu_);
    if (pending_index_ == 0) return;
    last_ = LogPosition{epoch_, pending_index_};
    pending_index_ = 0;
    entry.position = last_;
  }
  entry.batch = std::make_shared<const std::string>(batch.Data());
  entry.leader_unix_ms = absl::ToUnixMillis(absl::Now());
  // Cannot fail: the index is the log's next (Opened reset it to the store's
  // position and only this hook appends).
  log_->Append(std::move(entry)).IgnoreError();
}

absl::StatusOr<CheckpointInfo> LeaderWriteHook::CreateCheckpoint(const std::string& dir) {
  rocksdb::DB* db;
  {
    absl::MutexLock lock(&mu_);
    db = db_;
  }
  if (db == nullptr) return absl::FailedPreconditionError("the store is not open yet");
  return CreateRocksDbCheckpoint(*db, dir);
}

LogPosition LeaderWriteHook::last() const {
  absl::MutexLock lock(&mu_);
  return last_;
}

std::vector<std::string> LeaderWriteHook::ColumnFamilies() const {
  absl::MutexLock lock(&mu_);
  return DescribeColumnFamilies(handles_);
}

absl::Status LeaderWriteHook::open_status() const {
  absl::MutexLock lock(&mu_);
  return open_status_;
}

}  // namespace taskboard::ha
