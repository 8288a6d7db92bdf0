#include "scheduler/auth/principal.h"

#include "absl/strings/str_cat.h"

namespace taskboard::auth {

absl::string_view RoleName(Role role) {
  switch (role) {
    case Role::kClient:
      return "client";
    case Role::kWorker:
      return "worker";
    case Role::kAdmin:
      return "admin";
  }
  return "client";
}

absl::StatusOr<Role> ParseRole(absl::string_view name) {
  if (name == "client") return Role::kClient;
  if (name == "worker") return Role::kWorker;
  if (name == "admin") return Role::kAdmin;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown role '", name, "'; use client, worker or admin"));
}

absl::StatusOr<std::optional<std::string>> Caller::TenantToRead(absl::string_view requested) const {
  const std::optional<std::string> own = visible_tenant();
  if (!own.has_value()) {
    if (requested.empty()) return std::nullopt;
    return std::string(requested);
  }
  if (!requested.empty() && requested != *own) {
    return absl::PermissionDeniedError(absl::StrCat("the token of '", principal->name,
                                                    "' reads tenant '", *own, "' only, not '",
                                                    requested, "' (an admin token reads all)"));
  }
  return own;
}

}  // namespace taskboard::auth
