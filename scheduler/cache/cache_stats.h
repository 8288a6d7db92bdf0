#ifndef TASKBOARD_SCHEDULER_CACHE_CACHE_STATS_H_
#define TASKBOARD_SCHEDULER_CACHE_CACHE_STATS_H_

// What the shared tool cache holds and how its lookups went, per tenant,
// scope kind and tool (Scheduler.GetCacheStats, docs/tool-cache.md "Seeing
// the cache"). Counted where things happen, never by walking the entries:
// ToolCache reports every entry it indexes and removes (put, replace,
// eviction, expiry, scope removal, load), and ToolCacheService every lookup
// whose outcome it decides (the same decisions the metric
// taskboard_scheduler_tool_cache_lookups_total counts).
//
// Bound: at most kMaxToolsPerTenant tool names get their own rows per
// tenant; the lookups and entries of any further names are counted under
// kOtherTools. Tool names are not bounded elsewhere (a phase's
// `cacheable: true` makes every name a worker reports cacheable), tenants
// are bounded by the tokens file and there are three scope kinds, so there
// are at most tenants x 3 x (kMaxToolsPerTenant + 1) rows. Rows are kept
// until the scheduler restarts, so a tool's row never moves to kOtherTools
// (or back) while entries counted under it still exist.
//
// Lookup counts live in memory only and start at zero with the process;
// entry counts are rebuilt by ToolCache::Load.
// Thread safety: none. Owned and called by the engine loop only.

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::cache {

struct CacheStatsRow {
  std::string tenant;
  v1::CacheScope scope = v1::CACHE_SCOPE_RUN;
  std::string tool;
  int64_t entries = 0;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t coalesced = 0;
};

class CacheStats {
 public:
  static constexpr size_t kMaxToolsPerTenant = 200;
  static constexpr absl::string_view kOtherTools = "(other tools)";

  enum class Lookup { kHit, kMiss, kCoalesced };

  CacheStats() = default;
  CacheStats(const CacheStats&) = delete;
  CacheStats& operator=(const CacheStats&) = delete;

  // An entry of `tool` was indexed / removed under `key` (a cache key or its
  // scope prefix, cache_key.h). Keys ScopePrefix did not make are ignored.
  void EntryAdded(absl::string_view key, absl::string_view tool);
  void EntryRemoved(absl::string_view key, absl::string_view tool);
  // Every entry count back to zero (before a Load re-adds them); lookup
  // counts stay.
  void ClearEntries();

  // A lookup of `tool` under `key` had `outcome`.
  void CountLookup(absl::string_view key, absl::string_view tool, Lookup outcome);

  // The rows of `tenant` (every tenant when nullopt), by tenant, scope kind
  // (run, request, session) and tool.
  std::vector<CacheStatsRow> Rows(const std::optional<std::string>& tenant) const;

 private:
  struct Counts {
    int64_t entries = 0;
    int64_t hits = 0;
    int64_t misses = 0;
    int64_t coalesced = 0;
  };
  // (tenant, scope kind, tool)
  using RowKey = std::tuple<std::string, int, std::string>;

  // The row `tool` is counted in under `key`, created if need be; nullptr
  // when `key` is not a cache key.
  Counts* RowFor(absl::string_view key, absl::string_view tool);

  absl::btree_map<RowKey, Counts> rows_;
  // Per tenant: the tool names that have their own rows.
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> tools_of_tenant_;
};

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_CACHE_STATS_H_
