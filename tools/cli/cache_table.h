#ifndef TASKBOARD_TOOLS_CLI_CACHE_TABLE_H_
#define TASKBOARD_TOOLS_CLI_CACHE_TABLE_H_

// The table `taskboard cache` prints from GetCacheStats: one line per
// tenant, scope and tool in the scheduler's order, then a TOTAL line:
//
//   TENANT  SCOPE    TOOL        ENTRIES  HITS  MISSES  COALESCED  HIT%
//   acme    run      read_file   12       30    12      2          68.2%
//   acme    session  http_get    0        0     0       0          -
//   TOTAL                        12       30    12      2          68.2%
//
// HIT% is hits / (hits + misses + coalesced): the share of lookups the cache
// answered from a stored result ("-" when there were none).

#include <cstdint>
#include <ostream>
#include <string>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// "68.2%", or "-" when there were no lookups.
std::string FormatHitRatio(int64_t hits, int64_t misses, int64_t coalesced);

// `width` > 0 cuts lines to that many columns.
void PrintCacheTable(const v1::GetCacheStatsResponse& stats, int width, std::ostream& out);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_CACHE_TABLE_H_
