#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_LEASE_REVOKER_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_LEASE_REVOKER_H_

// How the runs stop the workers holding tasks of a run that was cancelled,
// paused or ended: the workers' side (workers/worker_manager.h) implements
// it, so the runs need not know the worker streams.

#include <string>
#include <vector>

namespace taskboard::engine {

class LeaseRevoker {
 public:
  virtual ~LeaseRevoker() = default;
  // Tells the worker holding each of `lease_ids` to stop (a Cancel saying
  // `reason`, "run cancelled" when empty) and ends the lease. Leases no
  // longer held are skipped.
  virtual void Revoke(const std::vector<std::string>& lease_ids, const std::string& reason) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_LEASE_REVOKER_H_
