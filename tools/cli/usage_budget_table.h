#ifndef TASKBOARD_TOOLS_CLI_USAGE_BUDGET_TABLE_H_
#define TASKBOARD_TOOLS_CLI_USAGE_BUDGET_TABLE_H_

// The tenants' period budgets `taskboard usage` prints after the usage table
// (GetUsageResponse.budgets; docs/llm-governance.md#tenant-budgets): what
// each tenant billed in its current day or month against its limits, and how
// much of each limit that is, so an operator sees who is close to its cap:
//
//   TENANT  PERIOD  FROM        COST                    TOKENS
//   acme    day     2026-11-25  $0.015 of $0.030 (50%)  45
//   globex  month   2026-11-01  $0.010                  7.7k of 1.0M (0%)
//
// A measure without a limit shows what was billed alone.

#include <ostream>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// Prints nothing when the response has no budgets. `width` > 0 cuts lines
// to that many columns.
void PrintBudgetTable(const v1::GetUsageResponse& usage, int width, std::ostream& out);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_USAGE_BUDGET_TABLE_H_
