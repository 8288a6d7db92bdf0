#ifndef TASKBOARD_SCHEDULER_AUTH_PRINCIPAL_H_
#define TASKBOARD_SCHEDULER_AUTH_PRINCIPAL_H_

// Who is calling the scheduler: the entry of the tokens file that the call's
// bearer token matched (docs/security.md). Handlers use the role to admit the
// call and the tenant to scope what it may see.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::auth {

enum class Role { kClient, kWorker, kAdmin };

// "client", "worker", "admin".
absl::string_view RoleName(Role role);
// INVALID_ARGUMENT listing the roles for anything else.
absl::StatusOr<Role> ParseRole(absl::string_view name);

struct Principal {
  std::string name;  // for logs and error messages
  Role role = Role::kClient;
  std::string tenant;
};

// The caller of one call: no principal when authentication is off (every
// call is admitted and sees every tenant).
struct Caller {
  std::optional<Principal> principal;

  // The tenant a new run belongs to: the principal's, "" without one.
  std::string tenant() const { return principal ? principal->tenant : ""; }
  // The only tenant whose runs the caller may see; nullopt: every tenant
  // (authentication off, or an admin).
  std::optional<std::string> visible_tenant() const {
    if (!principal || principal->role == Role::kAdmin) return std::nullopt;
    return principal->tenant;
  }
  // The tenant a read that asks for `requested` (empty: no preference)
  // covers: the caller's own for a client token, `requested` or every
  // tenant (nullopt) for an admin or without authentication.
  // PERMISSION_DENIED when a client token asks for another tenant.
  absl::StatusOr<std::optional<std::string>> TenantToRead(absl::string_view requested) const;
};

}  // namespace taskboard::auth

#endif  // TASKBOARD_SCHEDULER_AUTH_PRINCIPAL_H_
