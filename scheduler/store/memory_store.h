#ifndef TASKBOARD_SCHEDULER_STORE_MEMORY_STORE_H_
#define TASKBOARD_SCHEDULER_STORE_MEMORY_STORE_H_

// An in-memory Store: ordered maps per column behind one mutex. For unit
// tests of engine code and for benchmarks that measure everything but disk.

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/store/store.h"

namespace taskboard::store {

class MemoryStore : public Store {
 public:
  absl::Status Write(const WriteBatch& batch) override;
  absl::StatusOr<std::optional<std::string>> Get(Column column, absl::string_view key) override;
  absl::Status Scan(Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override;
  absl::Status ScanReverse(Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override;
  // A copy of every column (for tests and benchmarks; RocksDB's snapshots
  // copy nothing).
  std::shared_ptr<Store> ReadSnapshot() override;

 private:
  using Table = std::map<std::string, std::string, std::less<>>;

  // Copies the range first so visitors may call back into the store.
  std::vector<std::pair<std::string, std::string>> Range(Column column, absl::string_view start,
                                                         absl::string_view end);

  absl::Mutex mu_;
  Table tables_[kColumnCount] ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_MEMORY_STORE_H_
