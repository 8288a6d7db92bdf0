#ifndef TASKBOARD_SCHEDULER_CACHE_CACHE_KEY_H_
#define TASKBOARD_SCHEDULER_CACHE_CACHE_KEY_H_

// The shared tool cache's key (docs/semantics.md#keys-and-scopes):
//
//   tenant / scope / scope_id / tool_name / sha256(canonical_json(args'))
//
// where args' is the call's argument object restricted to the rule's
// key_fields (all of it when there are none). Every component is encoded as a
// 4-byte big-endian length followed by its bytes (the codec of
// scheduler/store/keys.h), so no tenant, scope id or tool name can be forged
// to collide with another, and every entry of one scope instance shares the
// byte prefix ScopePrefix(tenant, scope, scope_id). Tenants never share a
// prefix, which is what keeps their entries apart.
//
// The key is stable across processes and versions: argument key order,
// whitespace and number spelling (1 vs 1.0) never change it.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::cache {

struct CacheKey {
  // Shared by every key of the scope instance (tenant / scope / scope id).
  std::string scope_prefix;
  // scope_prefix + tool name + args digest; starts with scope_prefix.
  std::string key;
};

// The stable name of a scope inside keys: "run", "request", "session".
// CACHE_SCOPE_UNSPECIFIED means the default scope and is named "run".
absl::string_view CacheScopeKeyName(v1::CacheScope scope);

// The prefix of every key of one scope instance.
std::string ScopePrefix(absl::string_view tenant, v1::CacheScope scope, absl::string_view scope_id);

// Whose a scope instance is: the tenant and scope kind its prefix encodes.
struct ScopeOwner {
  std::string tenant;
  v1::CacheScope scope = v1::CACHE_SCOPE_RUN;
};

// The inverse of ScopePrefix for its first two components (the scope id is
// ignored); also accepts a full key, which starts with its scope prefix.
// nullopt when `prefix` was not made by ScopePrefix (too short, a length
// past the end, or a scope name ScopePrefix never writes).
std::optional<ScopeOwner> OwnerOfScopePrefix(absl::string_view prefix);

// Lower-case hex SHA-256 of the canonical JSON of `args_json` restricted to
// `key_fields` (top-level field names; all fields when empty). A key field
// the call does not pass is simply absent from the digest, so calls that
// both omit it match, and a call passing `"f": null` differs from one
// omitting `f`.
// INVALID_ARGUMENT: `args_json` is not JSON or not a JSON object (the message
// says what was received).
absl::StatusOr<std::string> ArgsDigest(absl::string_view args_json,
                                       const std::vector<std::string>& key_fields);

// The full key of one tool call. Errors as ArgsDigest, naming the tool.
absl::StatusOr<CacheKey> MakeCacheKey(absl::string_view tenant, v1::CacheScope scope,
                                      absl::string_view scope_id, absl::string_view tool_name,
                                      absl::string_view args_json,
                                      const std::vector<std::string>& key_fields);

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_CACHE_KEY_H_
