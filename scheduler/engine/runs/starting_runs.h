#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTING_RUNS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTING_RUNS_H_

// Submitted runs whose drivers start in the next batch (decision 121): the
// SubmitRun reply follows the batch that writes the run, and its tasks are
// created and written in the next one, so a large board's submit does not
// wait for them. Reads of such a run's tasks (GetRun after SubmitRun's
// reply) wait until the batch that creates them is written.
//
// StartLater, StartPending and any_pending: loop thread. WhenTasksCreated
// and TasksCreated: any thread (starting_mu_ is the only lock; it is never
// held while a read runs).

#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"

namespace taskboard::engine {

class StartingRuns {
 public:
  // Both outlive this.
  StartingRuns(ActiveRuns* runs, LoopBatch* batch) : runs_(runs), batch_(batch) {}

  // `run`'s driver starts at the top of the next batch; reads of its tasks
  // wait for that batch.
  void StartLater(ActiveRun& run);
  // Starts the drivers StartLater queued, in submit order, before the
  // batch's own events; the reads waiting for them go on once this batch is
  // written.
  void StartPending();
  // Runs wait to start: the loop does not sleep.
  bool any_pending() const { return !pending_.empty(); }

  // Runs `then` once the tasks `run_id` starts with are written, if it is
  // starting; at once, on the calling thread, otherwise.
  void WhenTasksCreated(const std::string& run_id, std::function<void()> then);
  // Runs the reads waiting for `run_ids` (all of them when null).
  void TasksCreated(const std::vector<std::string>* run_ids);

 private:
  ActiveRuns* const runs_;
  LoopBatch* const batch_;
  // Runs accepted by SubmitRun (or recovered before their start) whose
  // drivers start in the next batch, in submit order.
  std::vector<std::string> pending_;
  // Runs whose tasks are being created, until the batch that creates them
  // is written, with the reads waiting for them.
  absl::Mutex starting_mu_;
  absl::flat_hash_map<std::string, std::vector<std::function<void()>>> starting_
      ABSL_GUARDED_BY(starting_mu_);
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_STARTING_RUNS_H_
