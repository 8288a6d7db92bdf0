#ifndef TASKBOARD_TOOLS_CLI_TASK_TOOL_CALLS_H_
#define TASKBOARD_TOOLS_CLI_TASK_TOOL_CALLS_H_

// What one task did with tools, as `taskboard show` lists it from GetTask: the
// task and its counts, what the flow policy gave it as prior work at its last
// dispatch, then its calls in order, each cached call marked with its age and
// the task whose call produced the result, each failed one with its error:
//
//   summarize[3]  3 calls, 1 cached, 1 failed
//     prior work: declared_deps_only, 1 of 12 observations, ~420 tokens
//     ✓ read_file {"path":"README.md"}  (cached 1.2s old, from summarize[0])
//     ✓ read_file {"path":"src/a.cc"}  3ms
//     ✗ read_file {"path":"gone.md"}  error: file 'gone.md' does not exist
//
// Pure, like run_render.h: the same response and options give the same text.

#include <string>

#include "taskboard/v1/policy.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

struct ToolCallsOptions {
  bool color = false;
  // Lines are cut to this many columns; 0 = no limit.
  int width = 0;
  // List at most this many calls, then say how many more and how to list
  // them; 0 = all.
  int max_calls = 0;
};

// The block above; every line ends with '\n'.
std::string RenderTaskToolCalls(const v1::GetTaskResponse& task,
                                const ToolCallsOptions& options = {});

// "declared_deps_only, 3 of 12 observations, ~420 tokens", then ", with
// narrative" and "; fallback: REASON" when they apply; "" when the task has no
// prior work recorded (never dispatched, or by a scheduler without a ledger).
std::string FormatPriorWorkMeta(const v1::PriorWork& prior_work);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TASK_TOOL_CALLS_H_
