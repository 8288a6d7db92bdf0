#ifndef TASKBOARD_TOOLS_CLI_DAG_RAILS_H_
#define TASKBOARD_TOOLS_CLI_DAG_RAILS_H_

// How the CLI lays out a flow's DAG, shared by `taskboard validate` and the
// live run view: nodes grouped by topological layer, one row each, with
// pi-taskflow's rails in the left gutter. The nodes of one layer can run
// concurrently; a bracket (┌ ├ └) groups them, a single-node layer gets a
// blank gutter so the column stays quiet.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::cli {

// The gutter glyph of the node at `index` in a layer of `layer_size` nodes.
absl::string_view RailGlyph(size_t index, size_t layer_size);

// Board tasks grouped by DAG layer (from their deps), declaration order within
// a layer.
std::vector<std::vector<std::string>> BoardTaskLayers(const v1::BoardSpec& board);

// The dependencies of a node worth drawing: those outside the layer right
// above it (that edge is implied by position and rail), pi-taskflow's `↳`.
// `previous_layer` is a set: a board's layer can hold 100,000 tasks.
template <typename Deps>
std::vector<std::string> LongEdges(const Deps& deps,
                                   const absl::flat_hash_set<absl::string_view>& previous_layer) {
  std::vector<std::string> edges;
  for (const std::string& dep : deps) {
    if (!previous_layer.contains(dep)) edges.push_back(dep);
  }
  return edges;
}

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_DAG_RAILS_H_
