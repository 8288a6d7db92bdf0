#include "scheduler/server/run_access.h"

#include "absl/strings/str_cat.h"
#include "scheduler/engine/runs/run_reader.h"

namespace taskboard::server {

absl::Status CheckRunVisible(store::Store& store, const std::string& run_id,
                             const std::optional<std::string>& tenant) {
  if (!tenant.has_value()) return absl::OkStatus();
  absl::StatusOr<store::RunRecord> record = engine::ReadRunRecord(store, run_id);
  if (!record.ok()) return record.status();
  if (record->tenant() != *tenant) return engine::RunNotFoundError(run_id);
  return absl::OkStatus();
}

std::string ScopedIdempotencyKey(absl::string_view tenant, absl::string_view key) {
  // Tenant names cannot contain '/' (auth/tokens_file.h), so the prefix is
  // unambiguous.
  if (tenant.empty() || key.empty()) return std::string(key);
  return absl::StrCat("tenant/", tenant, "/", key);
}

}  // namespace taskboard::server
