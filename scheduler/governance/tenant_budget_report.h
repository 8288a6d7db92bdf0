#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_TENANT_BUDGET_REPORT_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_TENANT_BUDGET_REPORT_H_

// What GetUsage says of the tenants' period budgets
// (docs/llm-governance.md#tenant-budgets): each listed tenant's budget from
// the --llm-limits file next to what its calls billed in the period current
// at `now`. The billed figures are summed by UsageBook::TenantSpend, the sum
// a tenant's budget is enforced against, so the page an operator reads and
// the check that pauses a run cannot disagree on the arithmetic.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/governance/llm_limits.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::governance {

// The first UTC day whose usage rows any budget can count at `now`
// ("2026-11-01": the month's first day, since a budget may be monthly).
std::string BudgetRowsFrom(absl::Time now);

// Midnight UTC of the first day of the `period` that `now` falls in.
absl::Time PeriodStart(BudgetPeriod period, absl::Time now);

// One entry per tenant in `budgets` (by tenant name, as LlmLimits holds
// them), in name order; only `only` when it is set. `rows`: GetUsage's rows
// from BudgetRowsFrom(now) on, any tenants; rows outside a tenant's current
// period are not counted.
std::vector<v1::TenantBudget> TenantBudgetReport(const std::map<std::string, TenantBudget>& budgets,
                                                 const std::optional<std::string>& only,
                                                 const std::vector<v1::UsageRow>& rows,
                                                 absl::Time now);

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_TENANT_BUDGET_REPORT_H_
