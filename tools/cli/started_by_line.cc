#include "tools/cli/started_by_line.h"

#include "absl/strings/str_cat.h"

namespace taskboard::cli {

std::string StartedByLine(const v1::Run& run) {
  if (run.parent_run_id().empty()) return "";
  // A run an agent started names its task (Run.parent_task_id); a pattern's
  // child is the parent task's `child_run_id`, shown in the parent's table.
  if (!run.parent_task_id().empty()) {
    return absl::StrCat("started by: task ", run.parent_task_id(), " of run ", run.parent_run_id(),
                        " (depth ", run.depth(), ")");
  }
  return absl::StrCat("child of: run ", run.parent_run_id(), " (depth ", run.depth(), ")");
}

}  // namespace taskboard::cli
