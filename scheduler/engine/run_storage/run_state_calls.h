#ifndef TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STATE_CALLS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STATE_CALLS_H_

// A worker's RunState call on the engine loop: which run storage the task
// holding the lease may reach (its root run's, in its run's tenant), then
// the call itself (run_storage.h). The task names itself only by its lease,
// so no request can name another run or tenant (decision 207).

#include <string>

#include "absl/status/statusor.h"
#include "scheduler/engine/run_storage/run_storage.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

// `identity` is who the call authenticated as (the worker token's name; ""
// without authentication). Errors: PERMISSION_DENIED (the lease was given
// to a worker of another identity), FAILED_PRECONDITION (the task does not
// hold the lease now: ended, cancelled, given to another worker),
// INVALID_ARGUMENT (no op), and RunStorage::Apply's.
absl::StatusOr<v1::RunStateResponse> CallRunState(const std::string& identity,
                                                  const v1::RunStateRequest& request,
                                                  const LeaseKeeper& leases, ActiveRuns& runs,
                                                  RunStorage& storage, store::WriteBatch& writes);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STATE_CALLS_H_
