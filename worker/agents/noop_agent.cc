#include "worker/agents/noop_agent.h"

#include <utility>

namespace taskboard::worker {

NoopAgent::NoopAgent(std::string name, std::string description) {
  info_.set_name(std::move(name));
  info_.set_description(std::move(description));
  info_.set_type("noop");
}

AgentOutcome NoopAgent::Run(const v1::Assignment& assignment, AgentContext& context) const {
  if (context.cancellation().cancelled()) {
    return CancelledOutcome(assignment, context.cancellation());
  }
  AgentOutcome outcome;
  outcome.success = true;
  outcome.output = assignment.prompt();
  outcome.execution.set_prompt(assignment.prompt());
  return outcome;
}

}  // namespace taskboard::worker
