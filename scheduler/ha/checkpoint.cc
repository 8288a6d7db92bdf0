#include "scheduler/ha/checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "scheduler/ha/column_families.h"
#include "scheduler/store/rocksdb_checkpoint.h"
#include "scheduler/store/store.h"

namespace taskboard::ha {
namespace {

absl::Status Internal(const rocksdb::Status& status, absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", status.ToString()));
}

// The position stored in the checkpoint at `dir`, read with the database
// opened read-only (which replays the copied WAL).
absl::StatusOr<LogPosition> ReadPosition(const std::string& dir) {
  std::vector<std::string> names;
  rocksdb::DBOptions options;
  rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(options, dir, &names);
  if (!listed.ok()) return Internal(listed, absl::StrCat("cannot list the families of ", dir));
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status opened = rocksdb::DB::OpenForReadOnly(options, dir, families, &handles, &raw);
  if (!opened.ok()) return Internal(opened, absl::StrCat("cannot open the checkpoint ", dir));
  std::unique_ptr<rocksdb::DB> db(raw);
  const std::string meta(store::ColumnName(store::Column::kMeta));
  absl::StatusOr<LogPosition> position = LogPosition{};
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != meta) continue;
    std::string value;
    rocksdb::Status read =
        db->Get(rocksdb::ReadOptions(), handles[i],
                rocksdb::Slice(kPositionKey.data(), kPositionKey.size()), &value);
    if (read.ok()) {
      position = DecodeLogPosition(value);
    } else if (!read.IsNotFound()) {
      position = Internal(read, "cannot read the checkpoint's position");
    }
  }
  for (rocksdb::ColumnFamilyHandle* handle : handles) db->DestroyColumnFamilyHandle(handle);
  return position;
}

}  // namespace

absl::StatusOr<CheckpointInfo> CreateRocksDbCheckpoint(rocksdb::DB& db, const std::string& dir) {
  // No flush: the WAL is copied instead, so a checkpoint costs no memtable
  // flush on the leader (the store always writes a WAL under replication).
  if (absl::Status made = store::CheckpointRocksDb(db, dir, /*flush_first=*/false); !made.ok()) {
    return made;
  }
  return DescribeCheckpoint(dir);
}

absl::StatusOr<CheckpointInfo> DescribeCheckpoint(const std::string& dir) {
  CheckpointInfo info;
  info.dir = dir;
  absl::StatusOr<LogPosition> position = ReadPosition(dir);
  if (!position.ok()) return position.status();
  info.position = *position;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    // LOG*: the read-only open's own info log, not part of the database.
    if (!entry.is_regular_file() || entry.path().filename().string().rfind("LOG", 0) == 0) {
      continue;
    }
    info.files.push_back({entry.path().filename().string(), entry.file_size()});
  }
  if (error) {
    return absl::InternalError(absl::StrCat("cannot list ", dir, ": ", error.message()));
  }
  std::sort(
      info.files.begin(), info.files.end(),
      [](const CheckpointInfo::File& a, const CheckpointInfo::File& b) { return a.name < b.name; });
  return info;
}

absl::StatusOr<CheckpointInfo> StoreCheckpointSource::CreateCheckpoint(const std::string& dir) {
  if (absl::Status made = store_->Checkpoint(dir); !made.ok()) return made;
  return DescribeCheckpoint(dir);
}

}  // namespace taskboard::ha
