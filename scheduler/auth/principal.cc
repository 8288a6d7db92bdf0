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

}  // namespace taskboard::auth
