#ifndef TASKBOARD_WORKER_AGENTS_NOOP_AGENT_H_
#define TASKBOARD_WORKER_AGENTS_NOOP_AGENT_H_

// The `noop` agent: succeeds at once with its prompt as the output. Every
// worker has one named `noop` (for benchmarks and tests); agent files may
// define more under other names with `type: noop`.

#include <string>

#include "worker/agents/agent.h"

namespace taskboard::worker {

class NoopAgent : public Agent {
 public:
  NoopAgent(std::string name, std::string description);

  const v1::AgentInfo& info() const override { return info_; }
  AgentOutcome Run(const v1::Assignment& assignment, AgentContext& context) const override;
  bool needs_directory() const override { return false; }

 private:
  v1::AgentInfo info_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_NOOP_AGENT_H_
