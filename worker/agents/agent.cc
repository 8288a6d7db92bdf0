#include "worker/agents/agent.h"

#include "absl/strings/str_cat.h"

namespace taskboard::worker {

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
