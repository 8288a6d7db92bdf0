#include "tools/cli/run_billing.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "scheduler/governance/usage_sum.h"
#include "tools/cli/display_format.h"
#include "tools/cli/run_states.h"

namespace taskboard::cli {
namespace {

// Cost sums are doubles added in different orders by the scheduler; a
// difference below this is rounding, not a call the header misses.
constexpr double kCostEpsilon = 1e-9;

enum class BudgetOwner { kRun, kTenant };

// Whose budget the error names: the owner closest before the first
// "budget" ("paused: run r-1's budget of ...", "tenant acme's daily
// budget of ..."). The scheduler words these (scheduler/governance/budget.h);
// a run is assumed when neither is named.
BudgetOwner OwnerOf(absl::string_view lower_error, size_t budget_at) {
  const absl::string_view before = lower_error.substr(0, budget_at);
  const size_t tenant = before.rfind("tenant ");
  const size_t run = before.rfind("run ");
  if (tenant == absl::string_view::npos) return BudgetOwner::kRun;
  return run == absl::string_view::npos || tenant > run ? BudgetOwner::kTenant : BudgetOwner::kRun;
}

// Whether the budget reached is a token count ("budget of 50000 tokens is
// reached") rather than dollars ("budget of $0.5000 is reached"). An error
// worded otherwise falls back to the run's budget: tokens only when that is
// its only limit.
bool TokenLimitReached(absl::string_view lower_error, size_t budget_at,
                       const v1::RunBudget& budget) {
  absl::string_view after = lower_error.substr(budget_at + absl::string_view("budget").size());
  if (absl::ConsumePrefix(&after, " of ") && !after.empty()) {
    return absl::ascii_isdigit(static_cast<unsigned char>(after[0]));
  }
  return budget.usd() <= 0 && budget.tokens() > 0;
}

}  // namespace

bool HasBudget(const v1::RunBudget& budget) { return budget.usd() > 0 || budget.tokens() > 0; }

std::string FormatBudget(const v1::RunBudget& budget) {
  std::vector<std::string> limits;
  if (budget.usd() > 0) limits.push_back(FormatCost(budget.usd()));
  if (budget.tokens() > 0) limits.push_back(absl::StrCat(FormatTokens(budget.tokens()), " tokens"));
  return absl::StrJoin(limits, " / ");
}

std::string BilledLine(const v1::Run& run) {
  const std::string billed = FormatUsage(run.billed());
  const std::string budget = FormatBudget(run.budget());
  if (billed.empty() && budget.empty()) return "";
  std::string line = billed.empty() ? "billed nothing" : absl::StrCat("billed ", billed);
  if (!budget.empty()) absl::StrAppend(&line, " of budget ", budget);
  return line;
}

bool BillingWorthShowing(const v1::Run& run) {
  const v1::Usage& billed = run.billed();
  const v1::Usage& usage = run.usage();
  return HasBudget(run.budget()) || billed.input_tokens() > usage.input_tokens() ||
         billed.output_tokens() > usage.output_tokens() ||
         billed.cost_usd() > usage.cost_usd() + kCostEpsilon;
}

std::string BudgetResumeHint(const v1::Run& run) {
  // Only a run that stopped can be resumed; a completed one has nothing left.
  if (!IsSettled(run.status()) || run.status() == v1::RUN_STATUS_COMPLETED) return "";
  const std::string lower = absl::AsciiStrToLower(run.error());
  const size_t budget_at = lower.find("budget");
  if (budget_at == std::string::npos) return "";
  const std::string& id = run.run_id();
  if (OwnerOf(lower, budget_at) == BudgetOwner::kTenant) {
    // The run's own budget is not what stopped it: raising it would not help.
    return absl::StrCat("a tenant budget stopped it, not the run's: `taskboard resume ", id,
                        "` once that budget has room again (its next period, or a raised "
                        "limit); `taskboard usage` shows what was spent");
  }
  const v1::Usage& billed = run.billed();
  if (TokenLimitReached(lower, budget_at, run.budget())) {
    return absl::StrCat("raise its budget and continue: `taskboard resume ", id,
                        " --budget-tokens N` (N: the new total of input and output tokens, above "
                        "the ",
                        governance::BudgetTokens(billed), " billed)");
  }
  return absl::StrCat("raise its budget and continue: `taskboard resume ", id,
                      " --budget-usd X` (X: the new total in dollars, above the ",
                      FormatCost(billed.cost_usd()), " billed)");
}

}  // namespace taskboard::cli
