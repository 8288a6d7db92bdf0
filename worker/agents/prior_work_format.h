#ifndef TASKBOARD_WORKER_AGENTS_PRIOR_WORK_FORMAT_H_
#define TASKBOARD_WORKER_AGENTS_PRIOR_WORK_FORMAT_H_

// `formatPriorWork` (docs/semantics.md#prior-work-an-agent-receives): the text form of a task's
// prior work that agents put into a prompt (the llm agent appends it as a context section; command
// agents get the structured form in their envelope and may use this shape too). The scheduler never
// writes prior work into prompts.
//
// Layout:
//   - no observations and no narrative: "" (the agent adds no section).
//   - observations only: one line per observation, in order, joined by "\n":
//       - [task] tool(args) -> result
//       - [task] tool(args) -> ERROR: error (cached)
//   - with a narrative (compact policy): the summary first, since it covers
//     the older calls, then the verbatim recent calls under their own
//     heading, so a model reads it as "the story so far, then the latest":
//       Summary of earlier work:
//       <narrative>
//
//       Most recent tool calls:
//       - [task] tool(args) -> result
//     (the second part is left out when there are no observations).
//
// `[task]` is the task id; an observation from another run of the request
// (a parent or child run) reads `[run_id/task_id]` when `current_run_id` is
// given. Calls without a task id have no label. Line breaks inside a field
// are written as `\n` (common/observation_line.h), and nothing is truncated:
// the policy's max_tokens is the size control.

#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::worker {

std::string FormatPriorWork(const v1::PriorWork& prior_work, absl::string_view current_run_id = "");

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_PRIOR_WORK_FORMAT_H_
