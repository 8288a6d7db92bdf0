#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTED_RUNS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTED_RUNS_H_

// Runs a task's agent starts (SubmitRunRequest.started_by; pi-taskflow's
// `taskflow` tool, docs/semantics.md#nested-runs): such a run is a child of
// the starting task's run, like the child runs of nested patterns, so it
// shares the request (ledger, cache, run storage, budget), is listed under
// its parent, nests at most --max-run-depth deep and is cancelled when its
// parent ends (decisions 218 and 219). Unlike a pattern child it does not
// carry out the task: the task keeps running and learns of the run through
// its agent's own calls.
//
// Loop thread only.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/run_requests.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// The active run whose running task `started_by` names, when a caller of
// `tenant` may start a run from it. INVALID_ARGUMENT when no run of `tenant`
// has that id (another tenant's run reads as none), or the run has no such
// task; FAILED_PRECONDITION when the run has ended or the task is not
// running, or the run has started --max-child-runs-per-run child runs; a
// store read error as is. How deep the new run would nest is CreateRun's
// check (CheckChildDepth).
absl::StatusOr<RunState*> FindStartingRun(ActiveRuns& active, store::Store& store,
                                          const StartedBy& started_by, const std::string& tenant,
                                          const RunLimits& limits);

// FAILED_PRECONDITION, naming --max-child-runs-per-run, when `parent` has
// started as many child runs as `limits` allow; for pattern children and
// runs agents start alike.
absl::Status CheckChildRunRoom(const v1::Run& parent, const RunLimits& limits);

// FAILED_PRECONDITION, naming --max-run-depth, when a child of `parent`
// would nest deeper than `limits` allow; for pattern children and runs
// agents start alike.
absl::Status CheckChildDepth(const v1::Run& parent, const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTED_RUNS_H_
