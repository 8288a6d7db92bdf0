#include "scheduler/store/flow_key_migration.h"

#include <optional>
#include <string>

#include "scheduler/store/keys.h"

namespace taskboard::store {
namespace {

// One write batch's share of the column: bounded, so a large flows column
// is moved in pieces instead of held in memory at once.
constexpr size_t kBatchOps = 2'000;
constexpr size_t kBatchBytes = 16 << 20;

}  // namespace

absl::StatusOr<int64_t> MigrateFlowKeys(Store& store) {
  absl::StatusOr<std::optional<std::string>> marked =
      store.Get(Column::kMeta, keys::FlowKeysByTenant());
  if (!marked.ok()) return marked.status();
  if (marked->has_value()) return 0;
  int64_t moved = 0;
  std::string start;
  while (true) {
    WriteBatch batch;
    std::string last;
    bool full = false;
    absl::Status scanned =
        store.Scan(Column::kFlows, start, "", [&](absl::string_view key, absl::string_view value) {
          if (batch.ops().size() >= kBatchOps || batch.ByteSize() >= kBatchBytes) {
            full = true;
            return false;
          }
          last.assign(key.data(), key.size());
          std::optional<keys::FlowKey> legacy = keys::ParseLegacyFlow(key);
          if (!legacy.has_value()) return true;  // already moved
          batch.Put(Column::kFlows, keys::Flow(legacy->tenant, legacy->name, legacy->version),
                    value);
          batch.Delete(Column::kFlows, key);
          ++moved;
          return true;
        });
    if (!scanned.ok()) return scanned;
    if (!batch.empty()) {
      if (absl::Status written = store.Write(batch); !written.ok()) return written;
    }
    if (!full) break;
    // The smallest key after `last`: the scan goes on where it stopped.
    start = last;
    start.push_back('\0');
  }
  WriteBatch marker;
  marker.Put(Column::kMeta, keys::FlowKeysByTenant(), "");
  if (absl::Status written = store.Write(marker); !written.ok()) return written;
  return moved;
}

}  // namespace taskboard::store
