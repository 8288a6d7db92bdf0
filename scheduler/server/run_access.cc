#include "scheduler/server/run_access.h"

#include "absl/strings/str_cat.h"
#include "scheduler/engine/run_reader.h"

namespace taskboard::server {

absl::Status CheckRunVisible(store::Store& store, const std::string& run_id,
                             const std::optional<std::string>& tenant) {
  if (!tenant.has_value()) return absl::OkStatus();
  absl::StatusOr<store::RunRecord> record = engine::ReadRunRecord(store, run_id);
  if (!record.ok()) return record.status();
  if (record->tenant() != *tenant) return engine::RunNotFoundError(run_id);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> TenantToRead(const auth::Caller& caller,
                                                        const std::string& requested) {
  if (std::optional<std::string> own = caller.visible_tenant(); own.has_value()) {
    if (!requested.empty() && requested != *own) {
      return absl::PermissionDeniedError(absl::StrCat("the token of '", caller.principal->name,
                                                      "' reads tenant '", *own, "' only, not '",
                                                      requested, "' (an admin token reads all)"));
    }
    return own;
  }
  if (requested.empty()) return std::nullopt;
  return requested;
}

std::string ScopedIdempotencyKey(absl::string_view tenant, absl::string_view key) {
  // Tenant names cannot contain '/' (auth/tokens_file.h), so the prefix is
  // unambiguous.
  if (tenant.empty() || key.empty()) return std::string(key);
  return absl::StrCat("tenant/", tenant, "/", key);
}

}  // namespace taskboard::server
