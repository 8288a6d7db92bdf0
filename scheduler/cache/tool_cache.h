#ifndef TASKBOARD_SCHEDULER_CACHE_TOOL_CACHE_H_
#define TASKBOARD_SCHEDULER_CACHE_TOOL_CACHE_H_

// The shared tool cache's entries: a durable index from cache key
// (cache_key.h) to a tool result with an expiry, bounded per scope instance
// by least-recently-used eviction (docs/semantics.md#lifetime-and-bounds).
//
// Durability: every mutation appends its puts/deletes to the caller's
// store::WriteBatch (column kCache, key store::keys::Cache(cache key), value
// a store::CacheEntryRecord) and updates memory at once; the engine commits
// the batch at the end of its loop iteration, so memory runs ahead of the
// store by at most one uncommitted batch. Load rebuilds memory after a
// restart.
//
// Expiry: an entry is served while now_ms < created + ttl. Lookup never
// serves an expired entry but leaves it in place; Sweep (cheap: an
// expiry-ordered index) deletes expired entries from memory and the store.
// Call it regularly (every loop tick or second): until then expired entries
// still count toward entries() and max_entries.
//
// Recency: LRU order lives in memory only (persisting every hit would be a
// write per read). After a restart, Load orders each scope instance by
// creation time, oldest first to be evicted; hits from before the restart
// are forgotten.
//
// Time comes in as now_ms; nothing here reads a clock.
// Thread safety: none. Owned and called by the engine loop only.

#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/cache/cache_stats.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cache {

// Bounds that hold whatever flows and tools declare (scheduler flags).
struct CacheLimits {
  // No entry lives longer (--cache-max-ttl).
  int64_t max_ttl_ms = int64_t{7} * 24 * 3600 * 1000;
  // Entries per tenant across all its scopes (--cache-max-entries-per-tenant):
  // past it the oldest are evicted on write. Request scopes are new for every
  // run, so per-scope limits alone would let a busy tenant fill memory.
  int64_t max_entries_per_tenant = 100'000;
};

class ToolCache {
 public:
  // A tool result to store.
  struct Entry {
    std::string tool_name;
    std::string result_json;
    // The call that produced it.
    v1::TaskRef source_task;
    // 0 (or less): not stored.
    int64_t ttl_ms = 0;
  };

  struct Hit {
    std::string result_json;
    int64_t age_ms = 0;
    v1::TaskRef source_task;
  };

  ToolCache() = default;
  ToolCache(const ToolCache&) = delete;
  ToolCache& operator=(const ToolCache&) = delete;

  // Replaces the in-memory index with the kCache column of `store`. Entries
  // expired at `now_ms`, and rows that do not decode (a corrupt or foreign
  // row must not block startup), are not loaded and their deletes are
  // appended to `batch`. Errors: whatever Store::Scan returns (UNAVAILABLE /
  // INTERNAL); memory is then left empty.
  absl::Status Load(store::Store& store, int64_t now_ms, store::WriteBatch* batch);

  // The unexpired entry at `key`, if any; a hit makes it the most recently
  // used of its scope instance.
  std::optional<Hit> Lookup(absl::string_view key, int64_t now_ms);

  // Stores `entry` at `key` (replacing any entry there) unless its ttl is 0,
  // its ttl capped at limits().max_ttl_ms, then evicts the least recently
  // used entries of the key's scope instance beyond `max_entries` (values
  // below 1 count as 1), and the oldest entries of the key's tenant beyond
  // limits().max_entries_per_tenant.
  void Put(const CacheKey& key, Entry entry, int64_t max_entries, int64_t now_ms,
           store::WriteBatch* batch);

  // Deletes every entry expired at `now_ms`.
  void Sweep(int64_t now_ms, store::WriteBatch* batch);

  // Deletes every entry of the scope instance `scope_prefix`
  // (cache_key.h ScopePrefix), e.g. a request scope whose runs are deleted.
  void RemoveScope(const std::string& scope_prefix, store::WriteBatch* batch);

  // Set before Load and the first Put.
  void set_limits(CacheLimits limits) { limits_ = limits; }
  const CacheLimits& limits() const { return limits_; }

  // For metrics.
  int64_t entries() const { return static_cast<int64_t>(entries_.size()); }
  // Entries removed to honour max_entries, since construction.
  int64_t evictions() const { return evictions_; }
  // Entries removed by Sweep or Load because they expired, since construction.
  int64_t expirations() const { return expirations_; }
  // Entries per tenant, scope kind and tool, kept up to date by every
  // mutation above; the owner adds its lookup outcomes.
  CacheStats& stats() { return stats_; }
  const CacheStats& stats() const { return stats_; }

 private:
  struct Stored {
    std::string scope_prefix;
    std::string tool_name;
    std::string result_json;
    v1::TaskRef source_task;
    int64_t created_ms = 0;
    int64_t expires_ms = 0;
    // Position in lru_[scope_prefix].
    std::list<std::string>::iterator lru_position;
  };

  // Adds a stored entry to memory as the most recently used of its scope.
  void Index(std::string key, Stored stored);
  // Evicts the oldest entries of `tenant` (TenantOf) past the tenant limit.
  void EvictOverTenantLimit(const std::string& tenant, store::WriteBatch* batch);
  // Removes `key` from memory and appends its delete to `batch`.
  void Remove(const std::string& key, store::WriteBatch* batch);

  absl::flat_hash_map<std::string, Stored> entries_;
  // Per scope prefix: keys, most recently used first.
  absl::flat_hash_map<std::string, std::list<std::string>> lru_;
  // (expires_ms, key) for Sweep.
  std::set<std::pair<int64_t, std::string>> by_expiry_;
  // Per tenant (the first component of the scope prefix): (created_ms, key).
  absl::flat_hash_map<std::string, std::set<std::pair<int64_t, std::string>>> by_tenant_;
  CacheLimits limits_;
  int64_t evictions_ = 0;
  int64_t expirations_ = 0;
  CacheStats stats_;
};

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_TOOL_CACHE_H_
