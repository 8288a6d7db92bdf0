#ifndef TASKBOARD_COMMON_TOOL_ALLOW_LIST_H_
#define TASKBOARD_COMMON_TOOL_ALLOW_LIST_H_

// Which tools one task may call. Two lists restrict it: the flow phase's
// `tools` (Assignment.tools, chosen by whoever submits the flow) and the
// agent file's `tools` (chosen by the worker's operator). An empty list
// restricts nothing; when both are given the task may call only tools on
// both, so a flow can narrow what an agent may use but never widen it.
//
// The worker enforces it on every call (worker/session/tool_caller.h) and
// offers llm agents only these tools; the scheduler, which sees only the
// phase's list, checks lookups and observations against it again.
// Header-only so that the worker and the engine share one rule.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace taskboard {

class ToolAllowList {
 public:
  // Every tool allowed.
  ToolAllowList() = default;

  template <typename PhaseTools, typename AgentTools>
  ToolAllowList(const PhaseTools& phase_tools, const AgentTools& agent_tools) {
    const std::vector<std::string> phase(phase_tools.begin(), phase_tools.end());
    const std::vector<std::string> agent(agent_tools.begin(), agent_tools.end());
    if (phase.empty() && agent.empty()) return;
    restricted_ = true;
    for (const std::string& tool : phase.empty() ? agent : phase) {
      const bool on_both = agent.empty() || phase.empty() ||
                           std::find(agent.begin(), agent.end(), tool) != agent.end();
      if (on_both && !Allows(tool)) allowed_.push_back(tool);
    }
    std::sort(allowed_.begin(), allowed_.end());
  }

  // Whether any list restricts the task.
  bool restricted() const { return restricted_; }

  bool Allows(absl::string_view tool) const {
    return !restricted_ || std::find(allowed_.begin(), allowed_.end(), tool) != allowed_.end();
  }

  // The allowed tools, sorted; meaningful only when restricted().
  const std::vector<std::string>& allowed() const { return allowed_; }

  // OK when `tool` is allowed, else PERMISSION_DENIED naming the tool and
  // the allowed ones: "tool 'http_get' is not allowed for this task (its
  // allowed tools: read_file, list_files; set by the phase's and the agent
  // file's `tools`)".
  absl::Status Check(absl::string_view tool) const {
    if (Allows(tool)) return absl::OkStatus();
    return absl::PermissionDeniedError(absl::StrCat(
        "tool '", tool, "' is not allowed for this task (its allowed tools: ",
        allowed_.empty() ? std::string("none") : absl::StrJoin(allowed_, ", "),
        "; set by the flow phase's and the agent file's `tools`): call one of those, or add '",
        tool, "' to the lists"));
  }

 private:
  bool restricted_ = false;
  std::vector<std::string> allowed_;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_TOOL_ALLOW_LIST_H_
