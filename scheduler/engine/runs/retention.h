#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RETENTION_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RETENTION_H_

// --retention (docs/services.md#retention): deleting finished root runs in
// the background. Once a second Sweep finds the oldest finished root run
// past the retention in the index and plans its deletion (run_deletion.h);
// each batch then deletes a slice of its keys, and the last slice drops what
// memory held of it (idempotency keys here, cache entries and ledgers
// through the RunListener).
//
// Loop thread only.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/idempotency_keys.h"
#include "scheduler/engine/runs/run_deletion.h"
#include "scheduler/engine/runs/run_listener.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

class Retention {
 public:
  struct Options {
    int64_t retention_ms = 0;  // 0: runs are kept forever
    size_t keys_per_batch = 2'000;
  };
  // Everything outlives this; `metrics` may be null.
  Retention(Options options, store::Store* store, ActiveRuns* runs, LoopBatch* batch,
            IdempotencyKeys* keys, RunListener* listener, EngineMetrics* metrics)
      : options_(options),
        store_(store),
        runs_(runs),
        batch_(batch),
        keys_(keys),
        listener_(listener),
        metrics_(metrics) {}

  // Once per batch, before the commit: plans a deletion when one is due, or
  // deletes the next slice of the planned one.
  void Sweep();
  // `root_run_id` is being deleted (it can no longer be resumed).
  bool deleting(absl::string_view root_run_id) const {
    return deletion_.has_value() && deletion_->root_run_id() == root_run_id;
  }
  // A deletion is under way: the loop wakes every 10 ms to go on with it,
  // and nothing writes back what it deletes.
  bool busy() const { return deletion_.has_value(); }

 private:
  // Finds the oldest finished root run due for deletion and plans it; false
  // when there is none (yet).
  bool PlanNext();
  void Finish(const RunDeletion& deletion);

  const Options options_;
  store::Store* const store_;
  ActiveRuns* const runs_;
  LoopBatch* const batch_;
  IdempotencyKeys* const keys_;
  RunListener* const listener_;
  EngineMetrics* const metrics_;
  // The run being deleted, a slice per loop iteration.
  std::optional<RunDeletion> deletion_;
  int64_t next_check_ms_ = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RETENTION_H_
