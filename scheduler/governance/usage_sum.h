#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_

// Summing token and cost accounting: phase and run totals in the engine,
// billed usage and the tenants' day rows in governance.

#include "taskboard/v1/common.pb.h"

namespace taskboard::governance {

// Adds `usage`'s counters to `total` (the model is not summed).
void AddUsage(v1::Usage& total, const v1::Usage& usage);

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_SUM_H_
