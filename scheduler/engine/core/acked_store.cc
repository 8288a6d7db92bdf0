#include "scheduler/engine/core/acked_store.h"

#include <utility>

namespace taskboard::engine {

AckedStore::AckedStore(store::Store* store) : store_(store), visible_(store->ReadSnapshot()) {}

void AckedStore::Publish(std::shared_ptr<store::Store> snapshot, uint64_t index) {
  if (snapshot == nullptr) return;
  // The one released here may be the last reference: RocksDB frees it
  // outside the lock.
  absl::MutexLock lock(&mu_);
  if (index < visible_index_) return;
  visible_.swap(snapshot);
  visible_index_ = index;
}

std::shared_ptr<store::Store> AckedStore::Visible() {
  absl::MutexLock lock(&mu_);
  if (visible_ != nullptr) return visible_;
  // A store without snapshots (none that replicates): no view to keep.
  return std::shared_ptr<store::Store>(std::shared_ptr<store::Store>(), store_);
}

absl::Status AckedStore::Write(const store::WriteBatch& batch) {
  (void)batch;
  return absl::FailedPreconditionError(
      "the acknowledged view of the store is read-only: the engine's commit writes");
}

absl::StatusOr<std::optional<std::string>> AckedStore::Get(store::Column column,
                                                           absl::string_view key) {
  return Visible()->Get(column, key);
}

absl::StatusOr<std::vector<std::optional<std::string>>> AckedStore::MultiGet(
    store::Column column, absl::Span<const std::string> keys) {
  return Visible()->MultiGet(column, keys);
}

absl::Status AckedStore::Scan(store::Column column, absl::string_view start, absl::string_view end,
                              const Visitor& visit) {
  return Visible()->Scan(column, start, end, visit);
}

absl::Status AckedStore::ScanOnce(store::Column column, absl::string_view start,
                                  absl::string_view end, const Visitor& visit) {
  return Visible()->ScanOnce(column, start, end, visit);
}

absl::Status AckedStore::ScanReverse(store::Column column, absl::string_view start,
                                     absl::string_view end, const Visitor& visit) {
  return Visible()->ScanReverse(column, start, end, visit);
}

absl::Status AckedStore::Checkpoint(const std::string& dir) { return store_->Checkpoint(dir); }

std::shared_ptr<store::Store> AckedStore::ReadSnapshot() { return Visible(); }

}  // namespace taskboard::engine
