#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_BUDGET_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_BUDGET_H_

// Whether a model call fits a budget (a run's `budget`, a tenant's budget
// for the period; docs/llm-governance.md). A call fits when what was billed,
// plus what calls in flight may still cost, plus this call's most, stays
// within every limit the budget sets, so concurrent calls cannot overshoot
// it together. The one exception is cost for models the --llm-limits file
// does not price: it is known only when the call reports (the agent file's
// price), so a call in flight counts $0 until then.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/governance/llm_governor.h"
#include "scheduler/governance/llm_limits.h"

namespace taskboard::governance {

struct BudgetLimit {
  int64_t tokens = 0;  // 0: no limit
  double usd = 0;      // 0: no limit
};

// nullopt when the call fits; else why not, as a sentence that starts with
// `owner` ("run r-1's budget", "tenant acme's daily budget") and ends with
// `remedy`.
std::optional<std::string> OverBudget(absl::string_view owner, const BudgetLimit& limit,
                                      const Spend& billed, const Spend& in_flight,
                                      const Spend& call, absl::string_view remedy);

// The UTC day ("2026-11-25") and budget period ("2026-11-25" or "2026-11")
// that `time` falls in.
std::string UtcDay(absl::Time time);
std::string PeriodOf(BudgetPeriod period, absl::Time time);

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_BUDGET_H_
