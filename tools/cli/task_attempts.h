#ifndef TASKBOARD_TOOLS_CLI_TASK_ATTEMPTS_H_
#define TASKBOARD_TOOLS_CLI_TASK_ATTEMPTS_H_

// A task's earlier attempts (Task.earlier_attempts) as `taskboard show` lists
// them under the task table, one line each, oldest first:
//
//   earlier attempts:
//     build  attempt 1 on w-1: failed after 2.1s: compiler not found
//     build  attempt 2 on w-2: lease expired after 30.0s: worker 'w-2' sent no ...
//
// Pure: the same run gives the same text.

#include <string>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// "attempt 1 on w-1: failed after 2.1s: DETAIL"; the worker, the duration and
// the detail only when known, the reason with spaces for underscores.
std::string FormatEarlierAttempt(const v1::TaskAttempt& attempt);

// The block above for every task of `run` with earlier attempts; "" when none
// has any. Lines are cut to `width` columns (0 = no limit).
std::string RenderEarlierAttempts(const v1::Run& run, int width = 0);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TASK_ATTEMPTS_H_
