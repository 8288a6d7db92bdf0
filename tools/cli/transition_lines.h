#ifndef TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_
#define TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_

// The log form of the live view, for output that is not a terminal (CI, a
// file, a pipe): instead of redrawing a frame, one line per phase (taskflow)
// or task (other kinds) whose state changed between two snapshots, stamped
// with the time since the run was created:
//
//   [+12.3s] ✓ discover  completed  12.3s  ↑1.2k ↓310 $0.0021
//   [+52.0s] ⊘ lint  skipped  upstream phase 'summarize' failed
//   [+58.2s] ⛔ check  completed  3.1s  BLOCK: summaries are empty

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// Lines for every phase/task of `after` whose state differs from `before`
// (absent from `before` counts as pending; pending ones are not announced),
// in `after`'s order, plus one when a pattern's board phase (planning,
// active, ...) changed. A line is stamped with the change's own time when
// the snapshot has it (started_at, finished_at), else `now`.
std::vector<std::string> TransitionLines(const v1::Run& before, const v1::Run& after,
                                         absl::Time now);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_
