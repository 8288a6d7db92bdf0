#include "scheduler/audit/audit_sweep.h"

#include <optional>

#include "scheduler/store/keys.h"

namespace taskboard::audit {

absl::StatusOr<store::WriteBatch> ExpiredAuditRecords(store::Store& store, uint64_t cutoff_micros,
                                                      int max_records) {
  namespace keys = store::keys;
  store::WriteBatch deletes;
  int found = 0;
  absl::Status scan = store.Scan(
      store::Column::kMeta, keys::AuditTimeIndex(), keys::AuditByTime(cutoff_micros, ""),
      [&](absl::string_view key, absl::string_view) {
        if (found >= max_records) return false;
        std::optional<keys::AuditKey> parsed = keys::ParseAuditByTime(key);
        if (parsed.has_value()) {
          deletes.Delete(store::Column::kMeta, keys::AuditRecord(parsed->tenant, parsed->micros));
        }
        deletes.Delete(store::Column::kMeta, key);
        ++found;
        return true;
      });
  if (!scan.ok()) return scan;
  return deletes;
}

}  // namespace taskboard::audit
