#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_COMMIT_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_COMMIT_H_

// The runs' half of a group commit: each run a batch touched becomes its
// stored records (run, changed tasks and phases, removed tasks) and its
// events, numbered, in the batch's writes; the loop then hands the batch to
// the commit pipeline and publishes the events once it is written.
//
// Per run, in this order: what the run emitted (run_started, phase
// changes...), then the tasks it added in `tasks_created` events, then one
// `task_change` per other changed task, then run_finished, so a watcher sees
// the final task states before the run's end. Task records go in key order,
// not id order, so RocksDB inserts each next to the previous one of the run
// (run_key_prefix.h): a submit writes 10,000 of them at once.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// Told, during the commit, about the approval tasks it writes and about what
// leaves the runs (approvals/approvals.h keeps its pending approvals by it).
class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // A changed approval task of `run` is written (IsApprovalTask).
  virtual void ApprovalTaskCommitted(const ActiveRun& run, const store::TaskRecord& task) = 0;
  // `task_id` was removed from `run_id` (a replan drops planned tasks).
  virtual void TaskRemoved(const std::string& run_id, const std::string& task_id) = 0;
  // `run_id` finished in this batch.
  virtual void RunEnded(const std::string& run_id) = 0;
};

struct CommittedRuns {
  // The events to publish once the batch is written, by run.
  std::vector<std::pair<std::string, std::vector<v1::RunEvent>>> published;
  // The runs the batch finishes: they leave memory after the commit.
  std::vector<std::string> finished;
};

// Writes the changes of every run in `batch.touched()` to `batch.writes()`
// (a run read but not changed is only frozen again) and returns their
// events. `max_event_bytes` is --max-event-bytes; `metrics` may be null.
CommittedRuns CommitTouchedRuns(ActiveRuns& runs, LoopBatch& batch, int64_t max_event_bytes,
                                EngineMetrics* metrics, CommitObserver& observer);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_COMMIT_H_
