#include "scheduler/governance/budget.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/saturating_add.h"

namespace taskboard::governance {

std::optional<std::string> OverBudget(absl::string_view owner, const BudgetLimit& limit,
                                      const Spend& billed, const Spend& in_flight,
                                      const Spend& call, absl::string_view remedy) {
  if (limit.usd > 0 && billed.usd + in_flight.usd + call.usd > limit.usd) {
    return absl::StrFormat(
        "%s of $%.4f is reached: $%.4f billed, $%.4f in calls still running, and this call may "
        "cost up to $%.4f (%s)",
        owner, limit.usd, billed.usd, in_flight.usd, call.usd, remedy);
  }
  if (limit.tokens > 0 &&
      SaturatingAdd(SaturatingAdd(billed.tokens, in_flight.tokens), call.tokens) > limit.tokens) {
    return absl::StrFormat(
        "%s of %d tokens is reached: %d billed, %d in calls still running, and this call may use "
        "up to %d (%s)",
        owner, limit.tokens, billed.tokens, in_flight.tokens, call.tokens, remedy);
  }
  return std::nullopt;
}

std::string UtcDay(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d", time, absl::UTCTimeZone());
}

std::string PeriodOf(BudgetPeriod period, absl::Time time) {
  return absl::FormatTime(period == BudgetPeriod::kMonth ? "%Y-%m" : "%Y-%m-%d", time,
                          absl::UTCTimeZone());
}

}  // namespace taskboard::governance
