#include "scheduler/store/memory_store.h"

namespace taskboard::store {

absl::Status MemoryStore::Write(const WriteBatch& batch) {
  absl::MutexLock lock(&mu_);
  for (const WriteBatch::Op& op : batch.ops()) {
    Table& table = tables_[static_cast<int>(op.column)];
    if (op.value.has_value()) {
      table.insert_or_assign(op.key, *op.value);
    } else {
      table.erase(op.key);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> MemoryStore::Get(Column column, absl::string_view key) {
  absl::MutexLock lock(&mu_);
  const Table& table = tables_[static_cast<int>(column)];
  auto it = table.find(key);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, std::string>> MemoryStore::Range(Column column,
                                                                    absl::string_view start,
                                                                    absl::string_view end) {
  absl::MutexLock lock(&mu_);
  const Table& table = tables_[static_cast<int>(column)];
  std::vector<std::pair<std::string, std::string>> out;
  auto last = end.empty() ? table.end() : table.lower_bound(end);
  for (auto it = table.lower_bound(start); it != last; ++it) out.emplace_back(*it);
  return out;
}

absl::Status MemoryStore::Scan(Column column, absl::string_view start, absl::string_view end,
                               const Visitor& visit) {
  for (const auto& [key, value] : Range(column, start, end)) {
    if (!visit(key, value)) break;
  }
  return absl::OkStatus();
}

absl::Status MemoryStore::ScanReverse(Column column, absl::string_view start, absl::string_view end,
                                      const Visitor& visit) {
  auto range = Range(column, start, end);
  for (auto it = range.rbegin(); it != range.rend(); ++it) {
    if (!visit(it->first, it->second)) break;
  }
  return absl::OkStatus();
}

std::shared_ptr<Store> MemoryStore::ReadSnapshot() {
  auto copy = std::make_shared<MemoryStore>();
  absl::MutexLock lock(&mu_);
  absl::MutexLock copy_lock(&copy->mu_);
  for (int i = 0; i < kColumnCount; ++i) copy->tables_[i] = tables_[i];
  return copy;
}

}  // namespace taskboard::store
