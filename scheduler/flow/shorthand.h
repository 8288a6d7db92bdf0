#ifndef TASKBOARD_SCHEDULER_FLOW_SHORTHAND_H_
#define TASKBOARD_SCHEDULER_FLOW_SHORTHAND_H_

// Desugars pi-taskflow's shorthand forms into ordinary phases before
// decoding (docs/semantics.md#shorthand):
//
//   {task, agent?}   -> one agent phase `main` (final)             name: task
//   {tasks: [...]}   -> one parallel phase `parallel` (final)      name: parallel
//   {chain: [...]}   -> step1..stepN, each depending on the last   name: chain
//
// Precedence chain > tasks > task; empty arrays do not count. A document that
// has `phases` is returned unchanged. Chain steps and tasks entries may be
// plain strings. A top-level `agent` is the default agent of every step.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

struct DesugaredFlow {
  Json doc;
  // (path in `doc`, path in the submitted text) prefixes, so that errors
  // found after desugaring point at what the user wrote.
  std::vector<std::pair<std::string, std::string>> path_aliases;
};

DesugaredFlow DesugarShorthand(const Json& doc);

// Whether DesugarShorthand would change `doc` (a top-level chain, tasks,
// task or agent without phases). A flow written out in full, a board
// included, is decoded as it is, without a copy of the document.
bool HasShorthand(const Json& doc);

// Maps a path in the desugared document back to the submitted one.
std::string OriginalPath(absl::string_view path,
                         const std::vector<std::pair<std::string, std::string>>& aliases);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_SHORTHAND_H_
