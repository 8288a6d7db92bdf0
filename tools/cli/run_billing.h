#ifndef TASKBOARD_TOOLS_CLI_RUN_BILLING_H_
#define TASKBOARD_TOOLS_CLI_RUN_BILLING_H_

// What a run's model calls were billed against its budget, for `show`, the
// end of `run` / `watch` / `resume`, and the hint under a run a budget
// stopped (docs/llm-governance.md).
//
// `Run.billed` counts every call made for the run and its child runs,
// attempts that failed, were cancelled or retried included; the header's
// usage sums only the tasks' final results. Budgets are checked against
// `billed`, so that is the figure shown beside the budget.

#include <string>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// "$0.500 / 100k tokens", "$0.500" or "100k tokens"; "" when the budget sets
// no limit (0 is no limit).
std::string FormatBudget(const v1::RunBudget& budget);

bool HasBudget(const v1::RunBudget& budget);

// "billed ↑12k ↓3.1k $0.420 of budget $0.500 / 100k tokens"; without a
// budget just "billed ↑12k ↓3.1k $0.420"; "billed nothing of budget ..."
// when a budgeted run made no call yet; "" when neither.
std::string BilledLine(const v1::Run& run);

// Whether the end of `run` / `watch` / `resume` should print BilledLine: the
// run has a budget, or it billed more than the header's usage shows
// (retries, failed attempts). Otherwise the line would repeat the header.
bool BillingWorthShowing(const v1::Run& run);

// How to continue a run that a budget stopped (its error names a budget),
// e.g. "raise its budget and continue: taskboard resume r-1 --budget-usd X
// (X: the new total, above the $0.4213 billed)"; "" for other runs.
std::string BudgetResumeHint(const v1::Run& run);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_BILLING_H_
