#include "scheduler/flow/phase_graph.h"

#include <algorithm>
#include <initializer_list>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace taskboard::flow {

namespace {

using IdList = google::protobuf::RepeatedPtrField<std::string>;

std::vector<std::string> UniqueIds(std::initializer_list<const IdList*> lists) {
  std::vector<std::string> ids;
  size_t total = 0;
  for (const IdList* list : lists) total += static_cast<size_t>(list->size());
  ids.reserve(total);
  // Most phases wait for one or two others: a set per phase only pays off
  // for long lists (a board builds these once per task on every submit).
  constexpr size_t kLinearUpTo = 8;
  if (total <= kLinearUpTo) {
    for (const IdList* list : lists) {
      for (const std::string& id : *list) {
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      }
    }
    return ids;
  }
  absl::flat_hash_set<absl::string_view> seen;
  seen.reserve(total);
  for (const IdList* list : lists) {
    for (const std::string& id : *list) {
      if (seen.insert(id).second) ids.push_back(id);
    }
  }
  return ids;
}

}  // namespace

std::vector<std::string> PhaseDependencies(const v1::Phase& phase) {
  return UniqueIds({&phase.depends_on(), &phase.from_phases()});
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
