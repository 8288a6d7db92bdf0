#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_PERMISSION_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_PERMISSION_H_

// The scheduler's own check of a worker's tool calls against the task's
// allow-list (common/tool_allow_list.h). The scheduler knows the phase's
// `tools` (Assignment.tools); the agent file's list lives on the worker, which
// enforces both before calling. A worker should never look up or report a
// call this refuses; one that does (old, buggy or compromised) gets no cache
// decision but NOT_CACHEABLE, and its report is recorded as an error without
// its result, so the cache and later tasks' prior work never see it.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/state/run_state.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

// OK when task `task_id` of `run` may call `tool_name` (or the task is
// unknown: fencing is the lease's job). Else PERMISSION_DENIED naming the
// task, the tool and the allowed tools.
absl::Status CheckToolAllowed(const RunState& run, absl::string_view task_id,
                              absl::string_view tool_name);

// What is recorded in place of a refused report: `why` as its error, no
// result, not cached. The call id stays so that callers waiting on the call
// are promoted rather than left waiting.
v1::ToolObservation RefusedObservation(const v1::ToolObservation& reported,
                                       const absl::Status& why);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_PERMISSION_H_
