#include "tools/cli/usage_budget_table.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tools/cli/display_format.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// "(50%)": whole percent, rounded down, so 99.9% never reads as the cap.
std::string Percent(double billed, double limit) {
  return absl::StrCat("(", static_cast<int64_t>(std::floor(billed / limit * 100)), "%)");
}

std::string CostCell(const v1::TenantBudget& budget) {
  if (budget.budget_usd() <= 0) return FormatCost(budget.billed_usd());
  return absl::StrCat(FormatCost(budget.billed_usd()), " of ", FormatCost(budget.budget_usd()), " ",
                      Percent(budget.billed_usd(), budget.budget_usd()));
}

std::string TokensCell(const v1::TenantBudget& budget) {
  if (budget.budget_tokens() <= 0) return FormatTokens(budget.billed_tokens());
  return absl::StrCat(FormatTokens(budget.billed_tokens()), " of ",
                      FormatTokens(budget.budget_tokens()), " ",
                      Percent(static_cast<double>(budget.billed_tokens()),
                              static_cast<double>(budget.budget_tokens())));
}

}  // namespace

void PrintBudgetTable(const v1::GetUsageResponse& usage, int width, std::ostream& out) {
  if (usage.budgets().empty()) return;
  TextTable table({"TENANT", "PERIOD", "FROM", "COST", "TOKENS"});
  for (const v1::TenantBudget& budget : usage.budgets()) {
    table.AddRow(
        {budget.tenant(), budget.period(),
         absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(budget.period_start().seconds()),
                          absl::UTCTimeZone()),
         CostCell(budget), TokensCell(budget)});
  }
  table.Print(out, width);
}

}  // namespace taskboard::cli
