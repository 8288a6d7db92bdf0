#ifndef TASKBOARD_SCHEDULER_FLOW_DAG_H_
#define TASKBOARD_SCHEDULER_FLOW_DAG_H_

// Graph algorithms over named nodes with dependencies, shared by taskflow
// phases, board tasks and plans: cycle detection (reported as a path),
// topological layers and upstream closures. Unknown dependency ids are
// ignored here; validation reports them separately.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace taskboard::flow {

struct DagNode {
  std::string id;
  std::vector<std::string> deps;
};

// A dependency cycle as a closed path `{a, c, b, a}`, or nullopt. The search
// starts from nodes in declaration order, so the reported cycle is stable.
std::optional<std::vector<std::string>> FindCycle(const std::vector<DagNode>& nodes);

// `a -> c -> b -> a`.
std::string FormatCycle(const std::vector<std::string>& cycle);

// Layer of each node: 0 without deps, else 1 + the deepest dependency's layer.
// Nodes keep declaration order within a layer. Requires an acyclic graph.
std::vector<std::vector<std::string>> TopologicalLayers(const std::vector<DagNode>& nodes);

// Every node reachable by following deps from `id` (excluding `id`).
absl::flat_hash_set<std::string> UpstreamClosure(const std::vector<DagNode>& nodes,
                                                 const std::string& id);

// The nodes indexed by id once, on the first UpstreamClosure query, for many
// queries over one graph (the validator asks for one per template that reads
// a step, often none): each query then costs the closure, not the graph.
// `nodes` must outlive it.
class DagIndex {
 public:
  explicit DagIndex(const std::vector<DagNode>& nodes) : nodes_(nodes) {}
  absl::flat_hash_set<std::string> UpstreamClosure(const std::string& id) const;

 private:
  const std::vector<DagNode>& nodes_;
  mutable std::optional<absl::flat_hash_map<std::string, const DagNode*>> index_;
};

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_DAG_H_
