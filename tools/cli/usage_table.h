#ifndef TASKBOARD_TOOLS_CLI_USAGE_TABLE_H_
#define TASKBOARD_TOOLS_CLI_USAGE_TABLE_H_

// The table `taskboard usage` prints from GetUsage's rows (one per tenant,
// model and UTC day): the rows summed by the chosen grouping, sorted by
// their key, then a TOTAL row:
//
//   TENANT  MODEL         REQUESTS  INPUT  OUTPUT  CACHED  COST    429s
//   acme    claude-haiku  120       38k    9.1k    12k     $0.210  3
//   acme    gpt-4o        14        4.2k   1.0k    0       $0.031  0
//   TOTAL                 134       42k    10k     12k     $0.241  3

#include <optional>
#include <ostream>

#include "absl/strings/string_view.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// What one line of the table stands for (`--by`).
enum class UsageGrouping {
  kTenantModel,  // the default: a tenant's use of a model over the period
  kDay,          // tenant, model and day: the rows as the scheduler keeps them
  kModel,        // a model, all tenants together
  kTenant,       // a tenant, all models together
};

// "day", "model", "tenant"; "" is the default grouping. nullopt otherwise.
std::optional<UsageGrouping> UsageGroupingFromName(absl::string_view name);

// `width` > 0 cuts lines to that many columns.
void PrintUsageTable(const v1::GetUsageResponse& usage, UsageGrouping grouping, int width,
                     std::ostream& out);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_USAGE_TABLE_H_
