#ifndef TASKBOARD_TOOLS_CLI_STARTED_BY_LINE_H_
#define TASKBOARD_TOOLS_CLI_STARTED_BY_LINE_H_

// The line `taskboard show` prints about where a child run comes from
// (docs/semantics.md#nested-runs): the task whose agent started it with
// `run_flow`, or the parent run whose pattern or task made it, and how deep
// it nests (bounded by --max-run-depth).
//
//   started by: task research of run run-01H... (depth 1)
//   child of: run run-01H... (depth 2)

#include <string>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// "" for a root run.
std::string StartedByLine(const v1::Run& run);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_STARTED_BY_LINE_H_
