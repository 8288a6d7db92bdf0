#include "tools/cli/dag_rails.h"

#include <algorithm>

#include "scheduler/flow/dag.h"

namespace taskboard::cli {

absl::string_view RailGlyph(size_t index, size_t layer_size) {
  if (layer_size <= 1) return " ";
  if (index == 0) return "┌";
  if (index + 1 == layer_size) return "└";
  return "├";
}

std::vector<std::vector<std::string>> BoardTaskLayers(const v1::BoardSpec& board) {
  std::vector<flow::DagNode> nodes;
  for (const v1::BoardTask& task : board.tasks()) {
    nodes.push_back({task.id(), std::vector<std::string>(task.deps().begin(), task.deps().end())});
  }
  return flow::TopologicalLayers(nodes);
}

}  // namespace taskboard::cli
