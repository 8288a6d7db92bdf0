#ifndef TASKBOARD_SCHEDULER_CACHE_CACHE_RULE_H_
#define TASKBOARD_SCHEDULER_CACHE_CACHE_RULE_H_

// The effective caching rule of one tool call (docs/semantics.md#cache-rules), resolved
// from what the worker declares for the tool and what the flow configures,
// and the scope instance the call's entries live in.
//
// Precedence, field by field (first that is set wins):
//   cacheable:   phase `cacheable.tools[name]` > phase `cacheable` (all tools)
//                > flow `toolCache.tools[name].enabled` > "the flow names the
//                tool" (true) > the worker's declaration > false
//   ttl_ms:      flow rule ttl_ms (0 allowed) > declaration default_ttl_ms
//                (when > 0) > flow default_ttl_ms > 300000
//   scope:       flow rule scope > declaration default_scope > flow
//                default_scope > RUN
//   key_fields:  flow rule key_fields (when non-empty) > declaration key_fields
//   cache_if:    flow rule only (workers do not declare one)
//   max_entries: flow max_entries (when > 0) > 5000
// "Set" means a proto3 optional that is present, a non-UNSPECIFIED scope, a
// non-empty list or string. A declaration's default_ttl_ms of 0 reads as
// unset (proto3 cannot tell it apart); a flow rule can ask for ttl 0.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/flow/cache_if.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::cache {

inline constexpr int64_t kDefaultTtlMs = 300000;
inline constexpr int64_t kDefaultMaxEntries = 5000;

struct CacheRule {
  bool cacheable = false;
  // 0: never served from the cache (calls still coalesce).
  int64_t ttl_ms = kDefaultTtlMs;
  // Never UNSPECIFIED.
  v1::CacheScope scope = v1::CACHE_SCOPE_RUN;
  // Argument fields forming the key; all when empty.
  std::vector<std::string> key_fields;
  std::optional<flow::CacheIf> cache_if;
  // Per scope instance.
  int64_t max_entries = kDefaultMaxEntries;
};

// `decl`: the calling worker's declaration of `tool_name`, nullptr when the
// worker did not declare it. `phase`: the task's phase override, nullptr
// when none. INVALID_ARGUMENT when the flow rule's cache_if does not parse
// (the flow validator rejects those at submit, so this means a spec stored
// by an older version); the message names the tool and the column.
absl::StatusOr<CacheRule> ResolveCacheRule(absl::string_view tool_name,
                                           const v1::ToolDeclaration* decl,
                                           const v1::ToolCacheConfig& flow,
                                           const v1::PhaseCacheOverride* phase = nullptr);

// The ids a call's run can offer as scope ids.
struct RunScopeIds {
  std::string run_id;
  // Empty: the run is a root run (its own request).
  std::string root_run_id;
  // Empty: submitted without a session id.
  std::string session_id;
};

struct ResolvedScope {
  v1::CacheScope scope = v1::CACHE_SCOPE_RUN;
  std::string scope_id;
  // Non-empty when the scope had to change: a line for the run's events.
  std::string warning;
};

// RUN -> run id, REQUEST -> root run id, SESSION -> session id. SESSION for a
// run without a session id falls back to REQUEST with a warning.
// UNSPECIFIED is RUN.
ResolvedScope ResolveScopeId(v1::CacheScope scope, const RunScopeIds& ids);

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_CACHE_RULE_H_
