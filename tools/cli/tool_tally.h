#ifndef TASKBOARD_TOOLS_CLI_TOOL_TALLY_H_
#define TASKBOARD_TOOLS_CLI_TOOL_TALLY_H_

// How many tool calls a run's tasks made and how many of them the shared tool
// cache answered, counted from the run's `observation` events while the live
// view follows it. GetRun carries no such counts and observations leave the
// snapshot unchanged (the follower does not re-fetch for them), so the counts
// are kept on the side, per task, and the render sums them per phase.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "taskboard/v1/policy.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

struct ToolCount {
  int calls = 0;
  // Served from the cache, or by a coalesced call that was in flight elsewhere.
  int cached = 0;
  int failed = 0;

  ToolCount& operator+=(const ToolCount& other);
};

class ToolTally {
 public:
  // Counts one recorded call (the caller sees each observation once: the
  // event log has no duplicates and the follower resumes after the last seq).
  void Add(const v1::Observation& observation);

  const ToolCount& total() const { return total_; }
  // Zero for a task that made no call.
  ToolCount OfTask(absl::string_view task_id) const;
  // The calls of `tasks`, the tasks of phase `phase_id` (a map's items,
  // TasksByPhase); the task named like the phase when there are none.
  ToolCount OfPhase(absl::Span<const v1::Task* const> tasks, absl::string_view phase_id) const;

 private:
  ToolCount total_;
  absl::flat_hash_map<std::string, ToolCount> by_task_;
};

// "tools 12 (3 cached, 1 failed)", the parenthesis only when something was
// cached or failed; "" without calls. One phase or task row.
std::string FormatToolCount(const ToolCount& count);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TOOL_TALLY_H_
