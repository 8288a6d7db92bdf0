#include "tools/cli/tool_tally.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace taskboard::cli {

ToolCount& ToolCount::operator+=(const ToolCount& other) {
  calls += other.calls;
  cached += other.cached;
  failed += other.failed;
  return *this;
}

void ToolTally::Add(const v1::Observation& observation) {
  ToolCount one;
  one.calls = 1;
  one.cached = observation.cached() ? 1 : 0;
  one.failed = observation.error().empty() ? 0 : 1;
  total_ += one;
  by_task_[observation.task_id()] += one;
}

ToolCount ToolTally::OfTask(absl::string_view task_id) const {
  const auto it = by_task_.find(task_id);
  return it == by_task_.end() ? ToolCount{} : it->second;
}

ToolCount ToolTally::OfPhase(absl::Span<const v1::Task* const> tasks,
                             absl::string_view phase_id) const {
  if (tasks.empty()) return OfTask(phase_id);
  ToolCount count;
  for (const v1::Task* task : tasks) count += OfTask(task->task_id());
  return count;
}

std::string FormatToolCount(const ToolCount& count) {
  if (count.calls == 0) return "";
  std::vector<std::string> details;
  if (count.cached > 0) details.push_back(absl::StrCat(count.cached, " cached"));
  if (count.failed > 0) details.push_back(absl::StrCat(count.failed, " failed"));
  std::string text = absl::StrCat("tools ", count.calls);
  if (!details.empty()) absl::StrAppend(&text, " (", absl::StrJoin(details, ", "), ")");
  return text;
}

}  // namespace taskboard::cli
