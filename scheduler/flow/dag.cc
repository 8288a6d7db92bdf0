#include "scheduler/flow/dag.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"

namespace taskboard::flow {
namespace {

using NodeIndex = absl::flat_hash_map<std::string, const DagNode*>;

NodeIndex IndexNodes(const std::vector<DagNode>& nodes) {
  NodeIndex index;
  for (const DagNode& node : nodes) index.try_emplace(node.id, &node);
  return index;
}

}  // namespace

std::optional<std::vector<std::string>> FindCycle(const std::vector<DagNode>& nodes) {
  const NodeIndex index = IndexNodes(nodes);
  enum class Mark { kNew, kOnStack, kDone };
  absl::flat_hash_map<std::string, Mark> marks;
  std::vector<std::string> stack;

  // Iterative DFS along dependency edges; a node met while on the stack closes
  // a cycle, reported from that node around to itself.
  struct Frame {
    const DagNode* node;
    size_t next_dep;
  };
  for (const DagNode& start : nodes) {
    if (marks[start.id] != Mark::kNew) continue;
    std::vector<Frame> frames{{&start, 0}};
    marks[start.id] = Mark::kOnStack;
    stack.push_back(start.id);
    while (!frames.empty()) {
      Frame& frame = frames.back();
      if (frame.next_dep == frame.node->deps.size()) {
        marks[frame.node->id] = Mark::kDone;
        stack.pop_back();
        frames.pop_back();
        continue;
      }
      const std::string& dep = frame.node->deps[frame.next_dep++];
      auto it = index.find(dep);
      if (it == index.end()) continue;
      Mark& mark = marks[dep];
      if (mark == Mark::kOnStack) {
        std::vector<std::string> cycle(std::find(stack.begin(), stack.end(), dep), stack.end());
        cycle.push_back(dep);
        return cycle;
      }
      if (mark == Mark::kNew) {
        mark = Mark::kOnStack;
        stack.push_back(dep);
        frames.push_back({it->second, 0});
      }
    }
  }
  return std::nullopt;
}

std::string FormatCycle(const std::vector<std::string>& cycle) {
  return absl::StrJoin(cycle, " -> ");
}

std::vector<std::vector<std::string>> TopologicalLayers(const std::vector<DagNode>& nodes) {
  const NodeIndex index = IndexNodes(nodes);
  // Kahn's algorithm: a node's layer is fixed once all its dependencies have
  // theirs. Iterative, so deep chains cannot overflow the stack; nodes on a
  // cycle (rejected by validation) never become ready and land in layer 0.
  absl::flat_hash_map<std::string, int> pending_deps;
  absl::flat_hash_map<std::string, std::vector<const DagNode*>> dependents;
  for (const DagNode& node : nodes) {
    if (pending_deps.contains(node.id)) continue;  // duplicate id: first wins
    absl::flat_hash_set<std::string> unique_deps;
    for (const std::string& dep : node.deps) {
      if (index.contains(dep) && unique_deps.insert(dep).second) {
        dependents[dep].push_back(index.at(node.id));
      }
    }
    pending_deps[node.id] = static_cast<int>(unique_deps.size());
  }
  absl::flat_hash_map<std::string, int> layer_of;
  std::vector<const DagNode*> ready;
  for (const DagNode& node : nodes) {
    if (pending_deps[node.id] == 0 && index.at(node.id) == &node) ready.push_back(&node);
  }
  while (!ready.empty()) {
    const DagNode* node = ready.back();
    ready.pop_back();
    int layer = 0;
    for (const std::string& dep : node->deps) {
      if (auto it = layer_of.find(dep); it != layer_of.end())
        layer = std::max(layer, it->second + 1);
    }
    layer_of[node->id] = layer;
    for (const DagNode* dependent : dependents[node->id]) {
      if (--pending_deps[dependent->id] == 0) ready.push_back(dependent);
    }
  }
  std::vector<std::vector<std::string>> layers;
  absl::flat_hash_set<std::string> placed;
  for (const DagNode& node : nodes) {
    if (!placed.insert(node.id).second) continue;
    auto it = layer_of.find(node.id);
    const int layer = it == layer_of.end() ? 0 : it->second;
    if (static_cast<int>(layers.size()) <= layer) layers.resize(layer + 1);
    layers[layer].push_back(node.id);
  }
  return layers;
}

absl::flat_hash_set<std::string> UpstreamClosure(const std::vector<DagNode>& nodes,
                                                 const std::string& id) {
  const NodeIndex index = IndexNodes(nodes);
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> pending{id};
  while (!pending.empty()) {
    const std::string current = std::move(pending.back());
    pending.pop_back();
    auto it = index.find(current);
    if (it == index.end()) continue;
    for (const std::string& dep : it->second->deps) {
      if (dep != id && seen.insert(dep).second) pending.push_back(dep);
    }
  }
  return seen;
}

}  // namespace taskboard::flow
