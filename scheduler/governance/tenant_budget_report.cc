#include "scheduler/governance/tenant_budget_report.h"

#include <utility>

#include "absl/time/civil_time.h"
#include "scheduler/governance/budget.h"
#include "scheduler/governance/usage_book.h"

namespace taskboard::governance {

std::string BudgetRowsFrom(absl::Time now) {
  return UtcDay(PeriodStart(BudgetPeriod::kMonth, now));
}

absl::Time PeriodStart(BudgetPeriod period, absl::Time now) {
  const absl::CivilDay day = absl::ToCivilDay(now, absl::UTCTimeZone());
  if (period == BudgetPeriod::kDay) return absl::FromCivil(day, absl::UTCTimeZone());
  return absl::FromCivil(absl::CivilMonth(day), absl::UTCTimeZone());
}

std::vector<v1::TenantBudget> TenantBudgetReport(const std::map<std::string, TenantBudget>& budgets,
                                                 const std::optional<std::string>& only,
                                                 const std::vector<v1::UsageRow>& rows,
                                                 absl::Time now) {
  UsageBook book;
  for (const v1::UsageRow& row : rows) {
    if (only.has_value() && row.tenant() != *only) continue;
    UsageRow counted;
    counted.usage = row.usage();
    book.Load({row.day(), row.tenant(), row.model()}, std::move(counted));
  }
  std::vector<v1::TenantBudget> report;
  for (const auto& [tenant, budget] : budgets) {
    if (only.has_value() && tenant != *only) continue;
    const Spend billed = book.TenantSpend(tenant, PeriodOf(budget.period, now));
    v1::TenantBudget& entry = report.emplace_back();
    entry.set_tenant(tenant);
    entry.set_period(budget.period == BudgetPeriod::kMonth ? "month" : "day");
    entry.mutable_period_start()->set_seconds(absl::ToUnixSeconds(PeriodStart(budget.period, now)));
    entry.set_budget_usd(budget.usd);
    entry.set_budget_tokens(budget.tokens);
    entry.set_billed_usd(billed.usd);
    entry.set_billed_tokens(billed.tokens);
  }
  return report;
}

}  // namespace taskboard::governance
