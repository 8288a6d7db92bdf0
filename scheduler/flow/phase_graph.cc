#include "scheduler/flow/phase_graph.h"

#include "absl/container/flat_hash_set.h"

namespace taskboard::flow {

std::vector<std::string> PhaseDependencies(const v1::Phase& phase) {
  std::vector<std::string> deps;
  absl::flat_hash_set<std::string> seen;
  for (const auto* list : {&phase.depends_on(), &phase.from_phases()}) {
    for (const std::string& dep : *list) {
      if (seen.insert(dep).second) deps.push_back(dep);
    }
  }
  return deps;
}

std::vector<DagNode> PhaseNodes(const v1::TaskflowSpec& flow) {
  std::vector<DagNode> nodes;
  nodes.reserve(flow.phases_size());
  for (const v1::Phase& phase : flow.phases())
    nodes.push_back({phase.id(), PhaseDependencies(phase)});
  return nodes;
}

std::vector<std::vector<std::string>> PhaseLayers(const v1::TaskflowSpec& flow) {
  return TopologicalLayers(PhaseNodes(flow));
}

std::string FinalPhaseId(const v1::TaskflowSpec& flow) {
  for (const v1::Phase& phase : flow.phases()) {
    if (phase.is_final()) return phase.id();
  }
  return flow.phases().empty() ? "" : flow.phases(flow.phases_size() - 1).id();
}

}  // namespace taskboard::flow
