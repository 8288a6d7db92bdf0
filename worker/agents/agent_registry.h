#ifndef TASKBOARD_WORKER_AGENTS_AGENT_REGISTRY_H_
#define TASKBOARD_WORKER_AGENTS_AGENT_REGISTRY_H_

// The agents one worker offers: the built-in `noop` plus one per file of its
// agents directory (worker/agents/agent_file.h). Built once at start-up and
// read-only afterwards, so any thread may use it without locking.
//
// Definitions whose kind this worker cannot run do not fail the directory:
// they are kept as unavailable, with the reason, and not advertised (every
// kind runs today; the mechanism stays for kinds a worker may lack).

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "worker/agents/agent.h"
#include "worker/agents/agent_file.h"
#include "worker/agents/command_agent.h"

namespace taskboard::worker {

class AgentRegistry {
 public:
  // Loads every *.json, *.yaml, *.yml and *.md file directly in `dir` (not
  // subdirectories); an empty `dir` gives the built-in agents only.
  // Errors: NOT_FOUND when `dir` does not exist; INVALID_ARGUMENT naming the
  // file for a bad file, naming both files for a duplicate name, or naming
  // the file that redefines the built-in `noop`.
  static absl::StatusOr<std::unique_ptr<AgentRegistry>> Load(const std::filesystem::path& dir,
                                                             const CommandAgentOptions& options);

  // The agent to run a task with. NOT_FOUND listing the offered agents for an
  // unknown name; for an unavailable definition, the reason it is.
  absl::StatusOr<const Agent*> Find(absl::string_view name) const;

  // The runnable agents, sorted by name (Hello.agents).
  std::vector<v1::AgentInfo> Advertised() const;

  // Definitions that loaded but cannot run here, with why, sorted by name.
  const std::vector<std::pair<std::string, absl::Status>>& unavailable() const {
    return unavailable_;
  }

 private:
  AgentRegistry() = default;

  absl::flat_hash_map<std::string, std::unique_ptr<Agent>> agents_;
  std::vector<std::pair<std::string, absl::Status>> unavailable_;
};

// The agent for one definition (command, noop or llm).
absl::StatusOr<std::unique_ptr<Agent>> CreateAgent(AgentDefinition definition,
                                                   const CommandAgentOptions& options);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_AGENT_REGISTRY_H_
