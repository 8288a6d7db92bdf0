#include "scheduler/store/store.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace taskboard::store {

absl::string_view ColumnName(Column column) {
  switch (column) {
    case Column::kRuns:
      return "runs";
    case Column::kTasks:
      return "tasks";
    case Column::kEvents:
      return "events";
    case Column::kLedger:
      return "ledger";
    case Column::kCache:
      return "cache";
    case Column::kFlows:
      return "flows";
    case Column::kMeta:
      return "meta";
  }
  return "unknown";
}

void WriteBatch::Put(Column column, absl::string_view key, absl::string_view value) {
  PutOwned(column, std::string(key), std::string(value));
}

void WriteBatch::PutOwned(Column column, std::string key, std::string value) {
  bytes_ += key.size() + value.size();
  ops_.push_back({column, std::move(key), std::move(value)});
}

void WriteBatch::Delete(Column column, absl::string_view key) {
  ops_.push_back({column, std::string(key), std::nullopt});
  bytes_ += key.size();
}

void WriteBatch::Clear() {
  ops_.clear();
  bytes_ = 0;
}

absl::StatusOr<Durability> ParseDurability(absl::string_view text) {
  if (text == "sync") return Durability::kSync;
  if (text == "wal") return Durability::kWal;
  if (text == "none") return Durability::kNone;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown durability '", text, "': use sync, wal or none"));
}

std::string PrefixEnd(absl::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    unsigned char last = static_cast<unsigned char>(end.back());
    if (last != 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return end;
}

absl::Status Store::ScanPrefix(Column column, absl::string_view prefix, const Visitor& visit) {
  return Scan(column, prefix, PrefixEnd(prefix), visit);
}

absl::Status Store::ScanPrefixOnce(Column column, absl::string_view prefix, const Visitor& visit) {
  return ScanOnce(column, prefix, PrefixEnd(prefix), visit);
}

absl::Status Store::Checkpoint(const std::string& dir) {
  (void)dir;
  return absl::FailedPreconditionError(
      "this scheduler keeps its state in memory only (--memory): there is nothing on disk to "
      "back up; run it with --data-dir to make backups");
}

absl::StatusOr<std::vector<std::optional<std::string>>> Store::MultiGet(
    Column column, absl::Span<const std::string> keys) {
  std::vector<std::optional<std::string>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) {
    absl::StatusOr<std::optional<std::string>> value = Get(column, key);
    if (!value.ok()) return value.status();
    values.push_back(*std::move(value));
  }
  return values;
}

}  // namespace taskboard::store
