#include "scheduler/engine/tool_calls/tool_permission.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/tool_allow_list.h"

namespace taskboard::engine {

absl::Status CheckToolAllowed(const RunState& run, absl::string_view task_id,
                              absl::string_view tool_name) {
  const store::TaskRecord* task = run.FindTask(task_id);
  if (task == nullptr) return absl::OkStatus();
  const std::vector<std::string> agent_tools;  // known to the worker only
  const absl::Status allowed =
      ToolAllowList(task->assignment().tools(), agent_tools).Check(tool_name);
  if (allowed.ok()) return allowed;
  return absl::PermissionDeniedError(
      absl::StrCat("task '", task_id, "': ", allowed.message(),
                   " (refused by the scheduler: the worker should have refused this call itself)"));
}

v1::ToolObservation RefusedObservation(const v1::ToolObservation& reported,
                                       const absl::Status& why) {
  v1::ToolObservation refused = reported;
  refused.clear_result_json();
  refused.set_error(std::string(why.message()));
  refused.set_cached(false);
  refused.set_cache_age_ms(0);
  refused.clear_source_task();
  return refused;
}

}  // namespace taskboard::engine
