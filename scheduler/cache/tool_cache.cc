#include "scheduler/cache/tool_cache.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::cache {
namespace {

// The cache key inside a kCache store key (store::keys::Cache); nullopt when
// the row is not of that shape.
std::optional<std::string> CacheKeyOf(absl::string_view store_key) {
  if (store_key.size() < 4) return std::nullopt;
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<unsigned char>(store_key[i]);
  if (length != store_key.size() - 4) return std::nullopt;
  return std::string(store_key.substr(4));
}

// The tenant component (length prefix included) that starts every scope
// prefix (cache_key.h ScopePrefix): entries are counted per tenant by it.
std::string TenantOf(absl::string_view scope_prefix) {
  if (scope_prefix.size() < 4) return std::string(scope_prefix);
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<unsigned char>(scope_prefix[i]);
  return std::string(scope_prefix.substr(0, std::min<size_t>(scope_prefix.size(), 4 + length)));
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}

}  // namespace

absl::Status ToolCache::Load(store::Store& store, int64_t now_ms, store::WriteBatch* batch) {
  entries_.clear();
  lru_.clear();
  by_expiry_.clear();
  by_tenant_.clear();
  stats_.ClearEntries();

  struct Loaded {
    std::string key;
    Stored stored;
  };
  std::vector<Loaded> loaded;
  absl::Status scanned = store.Scan(
      store::Column::kCache, "", "", [&](absl::string_view store_key, absl::string_view value) {
        std::optional<std::string> key = CacheKeyOf(store_key);
        store::CacheEntryRecord record;
        if (!key.has_value() ||
            !record.ParseFromArray(value.data(), static_cast<int>(value.size())) ||
            record.scope_prefix().empty() || !absl::StartsWith(*key, record.scope_prefix())) {
          batch->Delete(store::Column::kCache, store_key);
          return true;
        }
        if (record.expires_unix_ms() <= now_ms) {
          batch->Delete(store::Column::kCache, store_key);
          ++expirations_;
          return true;
        }
        Stored stored;
        stored.scope_prefix = record.scope_prefix();
        stored.tool_name = record.tool_name();
        stored.result_json = std::move(*record.mutable_result_json());
        stored.source_task = record.source_task();
        stored.created_ms = record.created_unix_ms();
        stored.expires_ms = record.expires_unix_ms();
        loaded.push_back({*std::move(key), std::move(stored)});
        return true;
      });
  if (!scanned.ok()) return scanned;

  // Oldest first, so the newest ends up most recently used.
  std::stable_sort(loaded.begin(), loaded.end(), [](const Loaded& a, const Loaded& b) {
    return a.stored.created_ms < b.stored.created_ms;
  });
  std::set<std::string> tenants;
  for (Loaded& entry : loaded) {
    tenants.insert(TenantOf(entry.stored.scope_prefix));
    Index(std::move(entry.key), std::move(entry.stored));
  }
  // A lower limit than the one the entries were written under applies now.
  for (const std::string& tenant : tenants) EvictOverTenantLimit(tenant, batch);
  return absl::OkStatus();
}

std::optional<ToolCache::Hit> ToolCache::Lookup(absl::string_view key, int64_t now_ms) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.expires_ms <= now_ms) return std::nullopt;
  Stored& stored = it->second;
  std::list<std::string>& lru = lru_[stored.scope_prefix];
  lru.splice(lru.begin(), lru, stored.lru_position);
  return Hit{stored.result_json, std::max<int64_t>(0, now_ms - stored.created_ms),
             stored.source_task};
}

void ToolCache::Put(const CacheKey& key, Entry entry, int64_t max_entries, int64_t now_ms,
                    store::WriteBatch* batch) {
  if (entry.ttl_ms <= 0) return;
  entry.ttl_ms = std::min(entry.ttl_ms, std::max<int64_t>(1, limits_.max_ttl_ms));
  if (entries_.contains(key.key)) Remove(key.key, batch);

  Stored stored;
  stored.scope_prefix = key.scope_prefix;
  stored.tool_name = std::move(entry.tool_name);
  stored.result_json = std::move(entry.result_json);
  stored.source_task = std::move(entry.source_task);
  stored.created_ms = now_ms;
  stored.expires_ms = SaturatingAdd(now_ms, entry.ttl_ms);

  store::CacheEntryRecord record;
  record.set_tool_name(stored.tool_name);
  record.set_result_json(stored.result_json);
  record.set_created_unix_ms(stored.created_ms);
  record.set_expires_unix_ms(stored.expires_ms);
  *record.mutable_source_task() = stored.source_task;
  record.set_scope_prefix(stored.scope_prefix);
  batch->Put(store::Column::kCache, store::keys::Cache(key.key), record.SerializeAsString());
  Index(key.key, std::move(stored));

  const size_t limit = static_cast<size_t>(std::max<int64_t>(1, max_entries));
  std::list<std::string>& lru = lru_[key.scope_prefix];
  while (lru.size() > limit) {
    // Copy: Remove erases the list node that holds the key.
    const std::string victim = lru.back();
    Remove(victim, batch);
    ++evictions_;
  }
  EvictOverTenantLimit(TenantOf(key.scope_prefix), batch);
}

void ToolCache::EvictOverTenantLimit(const std::string& tenant, store::WriteBatch* batch) {
  const size_t limit = static_cast<size_t>(std::max<int64_t>(1, limits_.max_entries_per_tenant));
  auto entries = by_tenant_.find(tenant);
  while (entries != by_tenant_.end() && entries->second.size() > limit) {
    const std::string victim = entries->second.begin()->second;  // the oldest
    Remove(victim, batch);  // may erase the tenant's set: look it up again
    ++evictions_;
    entries = by_tenant_.find(tenant);
  }
}

void ToolCache::Sweep(int64_t now_ms, store::WriteBatch* batch) {
  while (!by_expiry_.empty() && by_expiry_.begin()->first <= now_ms) {
    const std::string key = by_expiry_.begin()->second;
    Remove(key, batch);
    ++expirations_;
  }
}

void ToolCache::RemoveScope(const std::string& scope_prefix, store::WriteBatch* batch) {
  auto lru = lru_.find(scope_prefix);
  if (lru == lru_.end()) return;
  // Remove drops the scope's list with its last key: iterate over a copy.
  const std::list<std::string> keys = lru->second;
  for (const std::string& key : keys) Remove(key, batch);
}

void ToolCache::Index(std::string key, Stored stored) {
  std::list<std::string>& lru = lru_[stored.scope_prefix];
  lru.push_front(key);
  stored.lru_position = lru.begin();
  by_expiry_.emplace(stored.expires_ms, key);
  by_tenant_[TenantOf(stored.scope_prefix)].emplace(stored.created_ms, key);
  stats_.EntryAdded(stored.scope_prefix, stored.tool_name);
  entries_.insert_or_assign(std::move(key), std::move(stored));
}

void ToolCache::Remove(const std::string& key, store::WriteBatch* batch) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  const Stored& stored = it->second;
  stats_.EntryRemoved(stored.scope_prefix, stored.tool_name);
  by_expiry_.erase({stored.expires_ms, key});
  if (auto tenant = by_tenant_.find(TenantOf(stored.scope_prefix)); tenant != by_tenant_.end()) {
    tenant->second.erase({stored.created_ms, key});
    if (tenant->second.empty()) by_tenant_.erase(tenant);
  }
  auto lru = lru_.find(stored.scope_prefix);
  lru->second.erase(stored.lru_position);
  if (lru->second.empty()) lru_.erase(lru);
  batch->Delete(store::Column::kCache, store::keys::Cache(key));
  entries_.erase(it);
}

}  // namespace taskboard::cache
