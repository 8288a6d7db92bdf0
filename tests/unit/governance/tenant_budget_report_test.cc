// GetUsage's tenant budgets (scheduler/governance/tenant_budget_report.h):
// each budget next to what its tenant billed in the period current now, and
// nothing from an earlier period or another tenant.

#include "scheduler/governance/tenant_budget_report.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace taskboard::governance {
namespace {

absl::Time At(int year, int month, int day, int hour = 0) {
  return absl::FromCivil(absl::CivilHour(year, month, day, hour), absl::UTCTimeZone());
}

v1::UsageRow Row(const std::string& tenant, const std::string& day, int64_t input, int64_t output,
                 double usd) {
  v1::UsageRow row;
  row.set_tenant(tenant);
  row.set_model("m");
  row.set_day(day);
  row.set_requests(1);
  row.mutable_usage()->set_input_tokens(input);
  row.mutable_usage()->set_output_tokens(output);
  row.mutable_usage()->set_cache_read_tokens(input);  // part of the input: not counted twice
  row.mutable_usage()->set_cost_usd(usd);
  return row;
}

// acme: $2 a day; globex: 1M tokens a month.
std::map<std::string, TenantBudget> Budgets() {
  return {{"acme", {.usd = 2, .tokens = 0, .period = BudgetPeriod::kDay}},
          {"globex", {.usd = 0, .tokens = 1'000'000, .period = BudgetPeriod::kMonth}}};
}

// Yesterday's, today's and this month's first day's rows for both tenants.
std::vector<v1::UsageRow> Rows() {
  return {Row("acme", "2026-11-01", 1000, 100, 0.5),  Row("globex", "2026-11-01", 7000, 700, 0),
          Row("acme", "2026-11-24", 2000, 200, 0.25), Row("acme", "2026-11-25", 300, 30, 0.125),
          Row("globex", "2026-11-25", 40, 4, 0.01),   Row("beta", "2026-11-25", 9, 9, 9)};
}

TEST(TenantBudgetReport, DayBudget_CountsTodayOnly_MonthBudgetTheWholeMonth) {
  const absl::Time now = At(2026, 11, 25, 15);
  const std::vector<v1::TenantBudget> report =
      TenantBudgetReport(Budgets(), std::nullopt, Rows(), now);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].tenant(), "acme");
  EXPECT_EQ(report[0].period(), "day");
  EXPECT_EQ(report[0].period_start().seconds(), absl::ToUnixSeconds(At(2026, 11, 25)));
  EXPECT_DOUBLE_EQ(report[0].budget_usd(), 2);
  EXPECT_EQ(report[0].budget_tokens(), 0);
  EXPECT_DOUBLE_EQ(report[0].billed_usd(), 0.125);
  EXPECT_EQ(report[0].billed_tokens(), 330);

  EXPECT_EQ(report[1].tenant(), "globex");
  EXPECT_EQ(report[1].period(), "month");
  EXPECT_EQ(report[1].period_start().seconds(), absl::ToUnixSeconds(At(2026, 11, 1)));
  EXPECT_EQ(report[1].budget_tokens(), 1'000'000);
  EXPECT_EQ(report[1].billed_tokens(), 7744);
  EXPECT_DOUBLE_EQ(report[1].billed_usd(), 0.01);
}

TEST(TenantBudgetReport, OneTenant_OnlyItsBudget) {
  const std::vector<v1::TenantBudget> report =
      TenantBudgetReport(Budgets(), "globex", Rows(), At(2026, 11, 25, 15));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].tenant(), "globex");
  EXPECT_EQ(report[0].billed_tokens(), 7744);
  // A tenant with usage and no budget (beta) has nothing to report.
  EXPECT_TRUE(TenantBudgetReport(Budgets(), "beta", Rows(), At(2026, 11, 25)).empty());
}

TEST(TenantBudgetReport, ANewPeriod_StartsFromNothing) {
  // The next day: acme's day is empty; globex's month still counts.
  std::vector<v1::TenantBudget> report =
      TenantBudgetReport(Budgets(), std::nullopt, Rows(), At(2026, 11, 26, 0));
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].billed_tokens(), 0);
  EXPECT_DOUBLE_EQ(report[0].billed_usd(), 0);
  EXPECT_EQ(report[1].billed_tokens(), 7744);
  // The next month: both empty.
  report = TenantBudgetReport(Budgets(), std::nullopt, Rows(), At(2026, 12, 1, 0));
  EXPECT_EQ(report[1].billed_tokens(), 0);
  EXPECT_EQ(report[1].period_start().seconds(), absl::ToUnixSeconds(At(2026, 12, 1)));
}

TEST(TenantBudgetReport, RowsFromTheMonthsFirstDay) {
  EXPECT_EQ(BudgetRowsFrom(At(2026, 11, 25, 15)), "2026-11-01");
  EXPECT_EQ(PeriodStart(BudgetPeriod::kDay, At(2026, 2, 28, 23)), At(2026, 2, 28));
}

}  // namespace
}  // namespace taskboard::governance
