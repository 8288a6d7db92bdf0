#include "tools/cli/cache_table.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/flow/flow_names.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// The DSL's scope names; an unset scope is the default, `run`.
std::string ScopeName(v1::CacheScope scope) {
  const absl::string_view name = flow::CacheScopeName(scope);
  return std::string(name.empty() ? "run" : name);
}

// An empty tenant is a scheduler without tenants (no auth): "-" keeps the
// columns readable.
std::string Named(const std::string& name) { return name.empty() ? "-" : name; }

std::vector<std::string> Counts(std::vector<std::string> key, int64_t entries, int64_t hits,
                                int64_t misses, int64_t coalesced) {
  key.push_back(absl::StrCat(entries));
  key.push_back(absl::StrCat(hits));
  key.push_back(absl::StrCat(misses));
  key.push_back(absl::StrCat(coalesced));
  key.push_back(FormatHitRatio(hits, misses, coalesced));
  return key;
}

}  // namespace

std::string FormatHitRatio(int64_t hits, int64_t misses, int64_t coalesced) {
  const int64_t lookups = hits + misses + coalesced;
  if (lookups <= 0) return "-";
  return absl::StrFormat("%.1f%%", 100.0 * static_cast<double>(hits) / lookups);
}

void PrintCacheTable(const v1::GetCacheStatsResponse& stats, int width, std::ostream& out) {
  TextTable table({"TENANT", "SCOPE", "TOOL", "ENTRIES", "HITS", "MISSES", "COALESCED", "HIT%"});
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t coalesced = 0;
  for (const v1::CacheStatsRow& row : stats.rows()) {
    table.AddRow(Counts({Named(row.tenant()), ScopeName(row.scope()), row.tool()}, row.entries(),
                        row.hits(), row.misses(), row.coalesced()));
    hits += row.hits();
    misses += row.misses();
    coalesced += row.coalesced();
  }
  table.AddRow(Counts({"TOTAL", "", ""}, stats.entries(), hits, misses, coalesced));
  table.Print(out, width);
}

}  // namespace taskboard::cli
