#ifndef TASKBOARD_TOOLS_CLI_RUN_DEADLINE_LINE_H_
#define TASKBOARD_TOOLS_CLI_RUN_DEADLINE_LINE_H_

// The line `taskboard show` prints about a run's deadline
// (docs/semantics.md#run-deadlines): its length, who set it, and whether it
// ended the run.
//
//   deadline: 30s (flow), 12s left
//   deadline: 2s (submit) passed: it ended the run
//   deadline: 3600s (schedule), not reached

#include <string>

#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// "" for a run without a deadline.
std::string RunDeadlineLine(const v1::Run& run, absl::Time now);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_DEADLINE_LINE_H_
