#ifndef TASKBOARD_SCHEDULER_FLOW_INPUT_HASH_H_
#define TASKBOARD_SCHEDULER_FLOW_INPUT_HASH_H_

// The input hash of a phase, which decides on resume whether a phase's
// earlier `done` output can be reused (docs/semantics.md#resume): the resolved agent,
// model, tools and fully interpolated task text; for map/parallel phases the
// list of item tasks. Equal inputs give equal hashes across processes and
// versions (SHA-256 of canonical JSON); tool order does not matter.

#include <string>
#include <vector>

namespace taskboard::flow {

struct PhaseInputs {
  std::string agent;
  std::string model;
  std::vector<std::string> tools;
  // One entry for agent/gate/reduce phases; one per item/branch otherwise,
  // each "agent\ntask" when items may use different agents.
  std::vector<std::string> tasks;
};

// Lower-case hex SHA-256.
std::string PhaseInputHash(const PhaseInputs& inputs);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_INPUT_HASH_H_
