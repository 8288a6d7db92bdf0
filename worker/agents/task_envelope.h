#ifndef TASKBOARD_WORKER_AGENTS_TASK_ENVELOPE_H_
#define TASKBOARD_WORKER_AGENTS_TASK_ENVELOPE_H_

// What a command agent is told about its task: the JSON envelope written to
// its stdin and the TASKBOARD_* environment variables (docs/agents-command.md).
//
//   {"task": {"id", "run_id", "root_run_id", "phase_id", "item_index",
//             "attempt", "agent", "model", "role"},
//    "prompt": "...",
//    "prior_work": {"observations": [...], "narrative", "meta"}
//                  (worker/agents/prior_work_json.h),
//    "dependency_results": [{"id", "output", "success"}],
//    "args": {...}}

#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

Json TaskEnvelope(const v1::Assignment& assignment);

// TASKBOARD_RUN_ID, TASKBOARD_TASK_ID, TASKBOARD_ATTEMPT, TASKBOARD_PROMPT
// and TASKBOARD_ARGS_JSON. The prompt and args are left out when too long
// for one environment variable (Linux: 128 KiB); the envelope always has them.
std::vector<std::pair<std::string, std::string>> TaskEnvironment(const v1::Assignment& assignment);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_TASK_ENVELOPE_H_
