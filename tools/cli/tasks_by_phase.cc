#include "tools/cli/tasks_by_phase.h"

namespace taskboard::cli {

TasksByPhase::TasksByPhase(const v1::Run& run) {
  for (const v1::Task& task : run.tasks()) tasks_[task.phase_id()].push_back(&task);
}

absl::Span<const v1::Task* const> TasksByPhase::Of(absl::string_view phase_id) const {
  auto it = tasks_.find(phase_id);
  if (it == tasks_.end()) return {};
  return it->second;
}

}  // namespace taskboard::cli
