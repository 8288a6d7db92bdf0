#include "scheduler/store/rocksdb_store.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/write_batch.h"
#include "scheduler/store/rocksdb_checkpoint.h"
#include "scheduler/store/run_key_prefix.h"
#include "scheduler/store/stop_marker.h"

namespace taskboard::store {
namespace {

rocksdb::Slice ToSlice(absl::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
absl::string_view ToView(const rocksdb::Slice& s) { return absl::string_view(s.data(), s.size()); }

// ScanOnce reads this far ahead of the iterator: whole runs' task records
// lie next to each other, so large reads serve many records each.
constexpr size_t kScanOnceReadahead = 2 << 20;

absl::Status FromRocks(const rocksdb::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  const std::string message = absl::StrCat(what, ": ", status.ToString());
  if (status.IsIOError() && absl::StrContains(status.ToString(), "lock")) {
    return absl::FailedPreconditionError(
        absl::StrCat(message, " (is another scheduler using this data directory?)"));
  }
  if (status.IsBusy() || status.IsTryAgain() || status.IsTimedOut()) {
    return absl::UnavailableError(message);
  }
  return absl::InternalError(message);
}

// The reads of one database, of its latest state or (with `snapshot`) of
// the state a snapshot pinned: shared by the store and its ReadSnapshots.
class RocksDbReads {
 public:
  RocksDbReads(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>* handles,
               const rocksdb::Snapshot* snapshot)
      : db_(db), handles_(handles), snapshot_(snapshot) {}

  absl::StatusOr<std::optional<std::string>> Get(Column column, absl::string_view key) const {
    std::string value;
    rocksdb::Status status = db_->Get(Options(), Handle(column), ToSlice(key), &value);
    if (status.IsNotFound()) return std::nullopt;
    if (!status.ok()) return FromRocks(status, "RocksDB read failed");
    return value;
  }

  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      Column column, absl::Span<const std::string> keys) const {
    std::vector<rocksdb::Slice> slices;
    slices.reserve(keys.size());
    for (const std::string& key : keys) slices.push_back(ToSlice(key));
    std::vector<rocksdb::ColumnFamilyHandle*> handles(keys.size(), Handle(column));
    std::vector<std::string> found;
    std::vector<rocksdb::Status> statuses = db_->MultiGet(Options(), handles, slices, &found);
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].IsNotFound()) {
        values.emplace_back(std::nullopt);
        continue;
      }
      if (!statuses[i].ok()) return FromRocks(statuses[i], "RocksDB read failed");
      values.emplace_back(std::move(found[i]));
    }
    return values;
  }

  absl::Status Scan(Column column, absl::string_view start, absl::string_view end,
                    const Store::Visitor& visit) const {
    return ScanWith(Options(), column, start, end, visit);
  }

  absl::Status ScanOnce(Column column, absl::string_view start, absl::string_view end,
                        const Store::Visitor& visit) const {
    rocksdb::ReadOptions options = Options();
    // Read once: blocks that entered the cache would only push out those
    // that later reads need.
    options.fill_cache = false;
    options.readahead_size = kScanOnceReadahead;
    return ScanWith(options, column, start, end, visit);
  }

  absl::Status ScanReverse(Column column, absl::string_view start, absl::string_view end,
                           const Store::Visitor& visit) const {
    rocksdb::ReadOptions options = Options();
    rocksdb::Slice lower = ToSlice(start);
    options.iterate_lower_bound = &lower;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options, Handle(column)));
    if (end.empty()) {
      it->SeekToLast();
    } else {
      it->SeekForPrev(ToSlice(end));
      // SeekForPrev lands on `end` itself when present; the range excludes it.
      if (it->Valid() && ToView(it->key()) == end) it->Prev();
    }
    for (; it->Valid(); it->Prev()) {
      if (!visit(ToView(it->key()), ToView(it->value()))) break;
    }
    return FromRocks(it->status(), "RocksDB scan failed");
  }

 private:
  rocksdb::ReadOptions Options() const {
    rocksdb::ReadOptions options;
    options.snapshot = snapshot_;
    return options;
  }
  rocksdb::ColumnFamilyHandle* Handle(Column column) const {
    return (*handles_)[static_cast<int>(column)];
  }

  // Every key in [start, end) (`end` empty: to the end of the column), the
  // upper bound set so the iterator stops at `end` without reading past it.
  absl::Status ScanWith(rocksdb::ReadOptions options, Column column, absl::string_view start,
                        absl::string_view end, const Store::Visitor& visit) const {
    rocksdb::Slice upper = ToSlice(end);
    if (!end.empty()) options.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options, Handle(column)));
    for (it->Seek(ToSlice(start)); it->Valid(); it->Next()) {
      if (!visit(ToView(it->key()), ToView(it->value()))) break;
    }
    return FromRocks(it->status(), "RocksDB scan failed");
  }

  rocksdb::DB* const db_;
  const std::vector<rocksdb::ColumnFamilyHandle*>* const handles_;
  const rocksdb::Snapshot* const snapshot_;
};

// A Store whose reads are `reads_`: the store itself and its snapshots.
class RocksDbReadingStore : public Store {
 public:
  explicit RocksDbReadingStore(RocksDbReads reads) : reads_(reads) {}

  absl::StatusOr<std::optional<std::string>> Get(Column column, absl::string_view key) override {
    return reads_.Get(column, key);
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      Column column, absl::Span<const std::string> keys) override {
    return reads_.MultiGet(column, keys);
  }
  absl::Status Scan(Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override {
    return reads_.Scan(column, start, end, visit);
  }
  absl::Status ScanOnce(Column column, absl::string_view start, absl::string_view end,
                        const Visitor& visit) override {
    return reads_.ScanOnce(column, start, end, visit);
  }
  absl::Status ScanReverse(Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override {
    return reads_.ScanReverse(column, start, end, visit);
  }

 private:
  const RocksDbReads reads_;
};

// A RocksDB snapshot as a read-only Store (Store::ReadSnapshot). It pins
// the versions it shows until released, so the store's owner releases every
// snapshot before closing the store (RocksDB refuses to close with one open).
class RocksDbSnapshot : public RocksDbReadingStore {
 public:
  RocksDbSnapshot(rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> handles)
      : RocksDbSnapshot(db, std::move(handles), db->GetSnapshot()) {}
  ~RocksDbSnapshot() override { db_->ReleaseSnapshot(snapshot_); }

  absl::Status Write(const WriteBatch&) override {
    return absl::FailedPreconditionError(
        "a store snapshot is read-only: write through the store it was taken from");
  }

 private:
  // The reads point at handles_, a member: they are used only once it is
  // constructed.
  RocksDbSnapshot(rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> handles,
                  const rocksdb::Snapshot* snapshot)
      : RocksDbReadingStore(RocksDbReads(db, &handles_, snapshot)),
        db_(db),
        handles_(std::move(handles)),
        snapshot_(snapshot) {}

  rocksdb::DB* const db_;
  const std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const rocksdb::Snapshot* const snapshot_;
};

class RocksDbStore : public RocksDbReadingStore {
 public:
  RocksDbStore(std::unique_ptr<rocksdb::DB> db, std::vector<rocksdb::ColumnFamilyHandle*> handles,
               Durability durability, std::string path, std::string boot_id,
               bool may_have_lost_writes, std::shared_ptr<RocksDbWriteHook> write_hook)
      // The reads point at handles_, a member: they are used only once it is
      // constructed.
      : RocksDbReadingStore(RocksDbReads(db.get(), &handles_, nullptr)),
        db_(std::move(db)),
        handles_(std::move(handles)),
        path_(std::move(path)),
        boot_id_(std::move(boot_id)),
        durability_(durability),
        may_have_lost_writes_(may_have_lost_writes),
        write_hook_(std::move(write_hook)) {
    write_options_.sync = durability == Durability::kSync;
    write_options_.disableWAL = durability == Durability::kNone;
    if (write_hook_ != nullptr) write_hook_->Opened(*db_, handles_);
  }

  ~RocksDbStore() override {
    // Flush memtables when the WAL is off, so a clean shutdown loses nothing.
    if (write_options_.disableWAL) db_->Flush(rocksdb::FlushOptions(), handles_);
    for (rocksdb::ColumnFamilyHandle* handle : handles_) {
      db_->DestroyColumnFamilyHandle(handle);
    }
    // Before 9.2 RocksDB does not sync the WAL on Close: without it a power
    // loss just after a clean stop could lose what the marker calls safe.
    const bool synced = write_options_.disableWAL || write_options_.sync || db_->SyncWAL().ok();
    if (db_->Close().ok() && synced) RecordCleanStop(path_);
  }

  bool MayHaveLostWrites() const override { return may_have_lost_writes_; }

  absl::Status Checkpoint(const std::string& dir) override {
    // Without a WAL the latest writes are only in the memtables.
    return CheckpointRocksDb(*db_, dir, /*flush_first=*/write_options_.disableWAL);
  }

  absl::Status SyncAndConfirmRecovery() override {
    rocksdb::Status synced =
        write_options_.disableWAL ? db_->Flush(rocksdb::FlushOptions(), handles_) : db_->SyncWAL();
    if (!synced.ok()) return FromRocks(synced, "RocksDB sync failed");
    return ConfirmRecovered(path_, boot_id_, durability_);
  }

  absl::Status Write(const WriteBatch& batch) override {
    // Sized once: growing a submit's several megabytes by doubling copied
    // them again and touched fresh pages each time. 32 bytes per op covers
    // RocksDB's tag, column family and length prefixes.
    rocksdb::WriteBatch rocks_batch(batch.ByteSize() + 32 * batch.ops().size() + 64);
    for (const WriteBatch::Op& op : batch.ops()) {
      rocksdb::ColumnFamilyHandle* handle = Handle(op.column);
      if (op.value.has_value()) {
        rocks_batch.Put(handle, ToSlice(op.key), ToSlice(*op.value));
      } else {
        rocks_batch.Delete(handle, ToSlice(op.key));
      }
    }
    if (write_hook_ == nullptr) {
      return FromRocks(db_->Write(write_options_, &rocks_batch), "RocksDB write failed");
    }
    // The hook numbers batches in write order and expects one writer; the
    // engine's commit pipeline and the saved flows' RPC threads both write.
    absl::MutexLock lock(&hooked_write_mu_);
    if (absl::Status added = write_hook_->BeforeWrite(rocks_batch); !added.ok()) return added;
    absl::Status written =
        FromRocks(db_->Write(write_options_, &rocks_batch), "RocksDB write failed");
    if (written.ok()) write_hook_->AfterWrite(rocks_batch);
    return written;
  }

  std::shared_ptr<Store> ReadSnapshot() override {
    if (write_hook_ == nullptr) return std::make_shared<RocksDbSnapshot>(db_.get(), handles_);
    // Between whole hooked writes: a snapshot never holds a batch whose
    // AfterWrite has not run, so the hook's last index, read after it,
    // covers everything it shows (the acknowledged view relies on that).
    absl::MutexLock lock(&hooked_write_mu_);
    return std::make_shared<RocksDbSnapshot>(db_.get(), handles_);
  }

 private:
  rocksdb::ColumnFamilyHandle* Handle(Column column) const {
    return handles_[static_cast<int>(column)];
  }

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // indexed by Column
  const std::string path_;
  const std::string boot_id_;
  const Durability durability_;
  const bool may_have_lost_writes_;
  const std::shared_ptr<RocksDbWriteHook> write_hook_;
  absl::Mutex hooked_write_mu_;
  rocksdb::WriteOptions write_options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> OpenRocksDbStore(const RocksDbStoreOptions& options) {
  const std::string boot_id = options.boot_id.empty() ? CurrentBootId() : options.boot_id;
  absl::StatusOr<bool> lost = BeginOpen(options.path, boot_id, options.durability);
  if (!lost.ok()) return lost.status();
  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  db_options.write_buffer_size = options.write_buffer_bytes;
  // Memtables of all families together, and the WAL behind them, are
  // bounded: otherwise a family written rarely (run records, meta) keeps
  // every WAL file alive and a long-running scheduler's disk only grows
  // although retention deletes runs (docs/performance.md#retention).
  db_options.db_write_buffer_size = 2 * options.write_buffer_bytes;
  db_options.max_total_wal_size = 8 * options.write_buffer_bytes;
  // Without a WAL, column families are flushed one by one, so a crash could
  // leave a run record that counts events its events family never got (and
  // the next event would reuse a seq). Atomic flush keeps them at one point.
  db_options.atomic_flush = options.durability == Durability::kNone;
  // Opening replays the WAL into memtables; they are flushed as they fill,
  // not all at once before the store serves (which made a restart write
  // every recovered memtable to disk first). The WAL is kept until then.
  db_options.avoid_flush_during_recovery = true;

  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.write_buffer_size = options.write_buffer_bytes;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // The engine commits from one thread, so RocksDB inserts serially and can
  // start each key where the run's previous one went (run_key_prefix.h).
  cf_options.memtable_insert_with_hint_prefix_extractor = NewRunKeyPrefix();

  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  // RocksDB requires the default family; Taskboard keeps it empty.
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, cf_options);
  for (int i = 0; i < kColumnCount; ++i) {
    families.emplace_back(std::string(ColumnName(static_cast<Column>(i))), cf_options);
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = rocksdb::DB::Open(db_options, options.path, families, &handles, &raw);
  if (!status.ok()) {
    return FromRocks(status, absl::StrCat("cannot open the store at ", options.path));
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  db->DestroyColumnFamilyHandle(handles.front());  // the unused default family
  handles.erase(handles.begin());
  return std::unique_ptr<Store>(std::make_unique<RocksDbStore>(std::move(db), std::move(handles),
                                                               options.durability, options.path,
                                                               boot_id, *lost, options.write_hook));
}

}  // namespace taskboard::store
