#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_

// Summing token and cost accounting: phase and run totals in the engine,
// billed usage and the tenants' day rows in governance. Every total a user
// reads (GetRun's usage and billed, GetTask, GetUsage) and every budget
// compares goes through these, so they follow one arithmetic: counts are
// never negative and sums saturate at the largest int64 instead of wrapping
// (common/saturating_add.h).

#include <cstdint>

#include "taskboard/v1/common.pb.h"

namespace taskboard::governance {

// Adds `usage`'s counters to `total` (the model is not summed), saturating.
void AddUsage(v1::Usage& total, const v1::Usage& usage);

// The usage of a task result as the scheduler accepts it from a worker:
// negative counts are 0, cached tokens at most the input tokens, a negative
// or non-finite cost 0. A worker that passed on a model server's negative
// counts (or an older worker) cannot make a run's totals negative.
v1::Usage AcceptedUsage(const v1::Usage& reported);

// Input plus output tokens, the tokens budgets count; saturating.
int64_t BudgetTokens(const v1::Usage& usage);

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_
