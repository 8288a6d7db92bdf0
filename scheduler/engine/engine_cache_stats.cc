// Engine: Scheduler.GetCacheStats (docs/tool-cache.md "Seeing the cache").
// The counts are kept by the cache itself (cache/cache_stats.h); this only
// reads them on the loop, where the cache lives.

#include <utility>

#include "scheduler/engine/engine.h"

namespace taskboard::engine {

void Engine::GetCacheStats(std::optional<std::string> tenant,
                           std::function<void(v1::GetCacheStatsResponse)> done) {
  Post([this, tenant = std::move(tenant), done = std::move(done)]() mutable {
    v1::GetCacheStatsResponse response;
    response.set_max_entries_per_tenant(cache_.limits().max_entries_per_tenant);
    int64_t entries = 0;
    for (cache::CacheStatsRow& row : cache_.StatsRows(tenant)) {
      v1::CacheStatsRow& out = *response.add_rows();
      out.set_tenant(std::move(row.tenant));
      out.set_scope(row.scope);
      out.set_tool(std::move(row.tool));
      out.set_entries(row.entries);
      out.set_hits(row.hits);
      out.set_misses(row.misses);
      out.set_coalesced(row.coalesced);
      entries += row.entries;
    }
    response.set_entries(entries);
    batch_.AfterCommit([done = std::move(done), response = std::move(response)]() mutable {
      done(std::move(response));
    });
  });
}

}  // namespace taskboard::engine
