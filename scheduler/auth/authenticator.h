#ifndef TASKBOARD_SCHEDULER_AUTH_AUTHENTICATOR_H_
#define TASKBOARD_SCHEDULER_AUTH_AUTHENTICATOR_H_

// Admits calls by their bearer token: finds the principal of the
// `authorization: Bearer <token>` header in the tokens file and checks its
// role against the method (method_roles.h). No gRPC here: the server passes
// the header's value and the method name (scheduler/server/call_gate.h).
//
// Thread-safe. Reload() swaps the table atomically (SIGHUP), so calls in
// flight use either the old table or the new one, never a mix.

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/auth/principal.h"
#include "scheduler/auth/tokens_file.h"

namespace taskboard::auth {

class Authenticator {
 public:
  // Loads `path` (tokens_file.h): its errors as is.
  static absl::StatusOr<std::unique_ptr<Authenticator>> FromFile(std::string path);
  // A fixed table (tests).
  explicit Authenticator(TokenTable table);

  // The principal calling `method` with this `authorization` header value
  // ("" when absent): UNAUTHENTICATED (saying how to pass a token) for a
  // missing, malformed or unknown token; PERMISSION_DENIED (CheckRole) for a
  // role the method does not allow.
  absl::StatusOr<Principal> Admit(absl::string_view authorization, absl::string_view method) const;

  // The principal of this `authorization` header value whatever the
  // method: UNAUTHENTICATED as Admit. The audit trail names a caller that
  // Admit refused for its role (docs/audit.md).
  absl::StatusOr<Principal> Identify(absl::string_view authorization) const;

  // Re-reads the file given to FromFile. On error the current table stays
  // and the error is returned. Returns the number of tokens loaded.
  absl::StatusOr<size_t> Reload();

  size_t size() const;

 private:
  Authenticator(std::string path, TokenTable table);

  const std::string path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const TokenTable> table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::auth

#endif  // TASKBOARD_SCHEDULER_AUTH_AUTHENTICATOR_H_
