#ifndef TASKBOARD_SCHEDULER_AUTH_TOKENS_FILE_H_
#define TASKBOARD_SCHEDULER_AUTH_TOKENS_FILE_H_

// The scheduler's tokens file (--auth-tokens, docs/security.md): YAML or
// JSON listing who may call, with which role and for which tenant:
//
//   tokens:
//     - token: 3f9c...           # the bearer token itself, or
//       sha256: 9a1b...          # its lower-case hex SHA-256 (preferred)
//       name: ci-bot             # shown in logs and errors
//       role: client             # client | worker | admin
//       tenant: acme             # required for clients
//
// Only hashes are kept in memory, so a table never holds a usable token, and
// a lookup hashes the presented token first, so its timing says nothing
// about the stored ones.

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/auth/principal.h"

namespace taskboard::auth {

// Plaintext tokens shorter than this are refused: a bearer token is the
// whole secret.
inline constexpr size_t kMinTokenLength = 16;

class TokenTable {
 public:
  // The principal whose token this is; null for an unknown token.
  const Principal* Find(absl::string_view token) const;
  size_t size() const { return by_hash_.size(); }

  // Adds an entry keyed by the token's SHA-256 (lower-case hex).
  // ALREADY_EXISTS when that hash is taken.
  absl::Status Add(std::string sha256_hex, Principal principal);

 private:
  absl::flat_hash_map<std::string, Principal> by_hash_;
};

// INVALID_ARGUMENT naming the entry (index and name) and the field at fault:
// a syntax error, no `tokens` list, an unknown field, both or neither of
// token / sha256, a short token, a malformed hash, a missing name, an unknown
// role, a client without a tenant, a tenant outside [A-Za-z0-9._-]{1,64}, or
// a token listed twice.
absl::StatusOr<TokenTable> ParseTokensFile(absl::string_view text);

// Reads and parses `path`; errors name the path. NOT_FOUND when it cannot be
// read.
absl::StatusOr<TokenTable> LoadTokensFile(const std::string& path);

}  // namespace taskboard::auth

#endif  // TASKBOARD_SCHEDULER_AUTH_TOKENS_FILE_H_
