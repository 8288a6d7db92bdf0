#include "scheduler/cache/cache_stats.h"

#include <algorithm>

#include "scheduler/cache/cache_key.h"

namespace taskboard::cache {

CacheStats::Counts* CacheStats::RowFor(absl::string_view key, absl::string_view tool) {
  std::optional<ScopeOwner> owner = OwnerOfScopePrefix(key);
  if (!owner.has_value()) return nullptr;
  absl::flat_hash_set<std::string>& tools = tools_of_tenant_[owner->tenant];
  absl::string_view row_tool = tool;
  if (!tools.contains(tool)) {
    if (tools.size() < kMaxToolsPerTenant) {
      tools.emplace(tool);
    } else {
      row_tool = kOtherTools;
    }
  }
  return &rows_[RowKey(std::move(owner->tenant), static_cast<int>(owner->scope),
                       std::string(row_tool))];
}

void CacheStats::EntryAdded(absl::string_view key, absl::string_view tool) {
  if (Counts* row = RowFor(key, tool)) ++row->entries;
}

void CacheStats::EntryRemoved(absl::string_view key, absl::string_view tool) {
  if (Counts* row = RowFor(key, tool)) row->entries = std::max<int64_t>(0, row->entries - 1);
}

void CacheStats::ClearEntries() {
  for (auto& [key, counts] : rows_) counts.entries = 0;
}

void CacheStats::CountLookup(absl::string_view key, absl::string_view tool, Lookup outcome) {
  Counts* row = RowFor(key, tool);
  if (row == nullptr) return;
  switch (outcome) {
    case Lookup::kHit:
      ++row->hits;
      break;
    case Lookup::kMiss:
      ++row->misses;
      break;
    case Lookup::kCoalesced:
      ++row->coalesced;
      break;
  }
}

std::vector<CacheStatsRow> CacheStats::Rows(const std::optional<std::string>& tenant) const {
  std::vector<CacheStatsRow> out;
  auto it = tenant.has_value() ? rows_.lower_bound(RowKey(*tenant, 0, "")) : rows_.begin();
  for (; it != rows_.end(); ++it) {
    const auto& [row_tenant, scope, tool] = it->first;
    if (tenant.has_value() && row_tenant != *tenant) break;
    CacheStatsRow& row = out.emplace_back();
    row.tenant = row_tenant;
    row.scope = static_cast<v1::CacheScope>(scope);
    row.tool = tool;
    row.entries = it->second.entries;
    row.hits = it->second.hits;
    row.misses = it->second.misses;
    row.coalesced = it->second.coalesced;
  }
  return out;
}

}  // namespace taskboard::cache
