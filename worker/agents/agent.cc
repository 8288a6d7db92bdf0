#include "worker/agents/agent.h"

#include "absl/strings/str_cat.h"

namespace taskboard::worker {

absl::StatusOr<ToolCallResult> AgentContext::CallTool(absl::string_view name,
                                                      absl::string_view args_json) {
  return absl::FailedPreconditionError(
      absl::StrCat("cannot call tool '", name, "': this agent runs without a worker's tools"));
}

std::vector<v1::ToolDeclaration> AgentContext::ToolDeclarations() const { return {}; }

std::vector<std::pair<std::string, std::string>> AgentContext::ToolEnvironment(
    const std::filesystem::path& workdir) {
  return {};
}

AgentOutcome CancelledOutcome(const v1::Assignment& assignment, const CancelToken& cancellation) {
  AgentOutcome outcome;
  const std::string reason = cancellation.reason();
  outcome.error = absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason);
  outcome.execution.set_prompt(assignment.prompt());
  outcome.execution.set_stopped(true);
  outcome.execution.set_stop_reason("cancelled");
  return outcome;
}

}  // namespace taskboard::worker
