#ifndef TASKBOARD_COMMON_OBSERVATION_LINE_H_
#define TASKBOARD_COMMON_OBSERVATION_LINE_H_

// The one-line rendering of a tool-call observation
// (docs/semantics.md#prior-work-an-agent-receives, `formatPriorWork`), shared by the worker's
// FormatPriorWork and the scheduler's compact-policy summarizer prompt so both read the same:
//
//   - [task] tool(args) -> result
//   - [task] tool(args) -> ERROR: error (cached)
//
// Plain string fields rather than the proto, so common/ stays free of the
// generated API code.

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard {

struct ObservationText {
  absl::string_view run_id;
  // Empty for calls made outside any task: the `[task] ` label is left out.
  absl::string_view task_id;
  absl::string_view tool_name;
  absl::string_view args_json;
  absl::string_view result_json;
  // Non-empty for failed calls; then result_json is not shown.
  absl::string_view error;
  bool cached = false;
};

// `- [task] tool(args) -> result|ERROR: error` plus ` (cached)`, without a
// trailing newline. The label is `run_id/task_id` when the observation comes
// from another run of the request than `current_run_id` (both non-empty),
// else just the task id. A missing result reads `null`. Line breaks inside
// any field are written as the two characters `\n` so that one observation
// is always one line.
std::string FormatObservationLine(const ObservationText& observation,
                                  absl::string_view current_run_id);

// The same for any record with the Observation accessors (the
// taskboard.v1.Observation proto), without common/ depending on the API.
template <typename Observation>
std::string FormatObservation(const Observation& obs, absl::string_view current_run_id) {
  return FormatObservationLine({.run_id = obs.run_id(),
                                .task_id = obs.task_id(),
                                .tool_name = obs.tool_name(),
                                .args_json = obs.args_json(),
                                .result_json = obs.result_json(),
                                .error = obs.error(),
                                .cached = obs.cached()},
                               current_run_id);
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_OBSERVATION_LINE_H_
