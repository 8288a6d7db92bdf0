#ifndef TASKBOARD_WORKER_AGENTS_PRIOR_WORK_JSON_H_
#define TASKBOARD_WORKER_AGENTS_PRIOR_WORK_JSON_H_

// A task's prior work (docs/semantics.md#prior-work-an-agent-receives: the observations its run's
// policy selected from the ledger) as the JSON a command agent reads in its envelope. Arguments and
// results are JSON values, not JSON text, so a script can use them directly (`jq
// '.prior_work.observations[].result'`):
//
//   {"observations": [{"seq": 3, "run_id": "r-1", "task_id": "scan",
//                      "tool": "read_file", "args": {"path": "a.txt"},
//                      "result": {...} | null, "error": "..." | null,
//                      "cached": false, "cache_age_ms": 0,
//                      "source_task": {"run_id", "task_id"} | null,
//                      "ts": "2025-01-01T00:00:00Z" | null, "duration_ms": 4}],
//    "narrative": "",
//    "meta": {"policy": "declared_deps_only", "selected": 1, "available": 7,
//             "tokens_approx": 120, "fallback_reason": ""}}
//
// An unset PriorWork has the same shape with no observations.

#include "common/json.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::worker {

Json PriorWorkJson(const v1::PriorWork& prior_work);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_PRIOR_WORK_JSON_H_
