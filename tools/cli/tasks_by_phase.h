#ifndef TASKBOARD_TOOLS_CLI_TASKS_BY_PHASE_H_
#define TASKBOARD_TOOLS_CLI_TASKS_BY_PHASE_H_

// A run snapshot's tasks grouped by phase, built once per render. Looking
// them up phase by phase would scan every task for every phase, and a board
// has a phase per task: following a 30,000-task board spent most of the
// CLI's time there.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

class TasksByPhase {
 public:
  // `run` must outlive the index.
  explicit TasksByPhase(const v1::Run& run);

  // The phase's tasks, in snapshot order; empty for an unknown phase.
  absl::Span<const v1::Task* const> Of(absl::string_view phase_id) const;

 private:
  absl::flat_hash_map<absl::string_view, std::vector<const v1::Task*>> tasks_;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TASKS_BY_PHASE_H_
