#include "scheduler/flow/dag.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

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
  // Ids are looked up once, then everything is by index: a board has a node
  // per task, and maps keyed by id were most of this on a 10,000-task submit.
  // A duplicated id stands for its first node (the others are not placed).
  const size_t n = nodes.size();
  absl::flat_hash_map<absl::string_view, size_t> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) index.try_emplace(nodes[i].id, i);
  std::vector<bool> first(n, false);
  for (size_t i = 0; i < n; ++i) first[i] = index.at(nodes[i].id) == i;
  // Kahn's algorithm: a node's layer is fixed once all its dependencies have
  // theirs. Iterative, so deep chains cannot overflow the stack; nodes on a
  // cycle (rejected by validation) never become ready and land in layer 0.
  std::vector<std::vector<size_t>> deps_of(n);  // known deps, each once
  std::vector<std::vector<size_t>> dependents(n);
  std::vector<size_t> pending(n, 0);
  std::vector<size_t> listed_by(n, n);  // the node whose deps list it last
  for (size_t i = 0; i < n; ++i) {
    if (!first[i]) continue;
    std::vector<size_t>& deps = deps_of[i];
    for (const std::string& dep : nodes[i].deps) {
      auto it = index.find(dep);
      if (it == index.end() || listed_by[it->second] == i) continue;
      listed_by[it->second] = i;
      deps.push_back(it->second);
      dependents[it->second].push_back(i);
    }
    pending[i] = deps.size();
  }
  std::vector<int> layer_of(n, -1);
  std::vector<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (first[i] && pending[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const size_t node = ready.back();
    ready.pop_back();
    int layer = 0;
    for (size_t dep : deps_of[node]) {
      if (layer_of[dep] >= 0) layer = std::max(layer, layer_of[dep] + 1);
    }
    layer_of[node] = layer;
    for (size_t dependent : dependents[node]) {
      if (--pending[dependent] == 0) ready.push_back(dependent);
    }
  }
  std::vector<std::vector<std::string>> layers;
  for (size_t i = 0; i < n; ++i) {
    if (!first[i]) continue;
    const int layer = std::max(layer_of[i], 0);
    if (static_cast<int>(layers.size()) <= layer) layers.resize(layer + 1);
    layers[layer].push_back(nodes[i].id);
  }
  return layers;
}

absl::flat_hash_set<std::string> UpstreamClosure(const std::vector<DagNode>& nodes,
                                                 const std::string& id) {
  return DagIndex(nodes).UpstreamClosure(id);
}

absl::flat_hash_set<std::string> DagIndex::UpstreamClosure(const std::string& id) const {
  if (!index_.has_value()) index_ = IndexNodes(nodes_);
  const NodeIndex& index = *index_;
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
