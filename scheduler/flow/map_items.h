#ifndef TASKBOARD_SCHEDULER_FLOW_MAP_ITEMS_H_
#define TASKBOARD_SCHEDULER_FLOW_MAP_ITEMS_H_

// Turns what a map phase's `over` resolved to into the list of items it fans
// out over (docs/semantics.md#map-and-parallel-phases). Upstream agents rarely return a bare
// array: they wrap it in an object or in prose, so the common wrappers are
// unpacked here rather than failing the phase.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

// The items of `resolved`:
//   - an array: its elements (possibly none);
//   - an object: the first array among its `items`, `results`, `list`, `data`;
//   - a string: the JSON found in it by ExtractJson, unpacked as above.
// INVALID_ARGUMENT otherwise:
//   map phase 'm': 'over' did not resolve to an array (got: <first 80 chars>)
// where the text shown is the string itself, or the compact JSON of anything
// else, cut at 80 characters (never inside a UTF-8 sequence).
absl::StatusOr<std::vector<Json>> ResolveMapItems(absl::string_view phase_id, const Json& resolved);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_MAP_ITEMS_H_
