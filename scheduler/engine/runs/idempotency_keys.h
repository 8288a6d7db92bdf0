#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_IDEMPOTENCY_KEYS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_IDEMPOTENCY_KEYS_H_

// SubmitRun's idempotency keys: which run a key created, so a retried
// submit answers the earlier run instead of starting another. The keys of
// active runs are in memory; older ones are read from the store, where
// every key is written with its run.
//
// Loop thread only.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "scheduler/engine/runs/run_deletion.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

class IdempotencyKeys {
 public:
  // `store` is the loop's view of the store; it outlives this.
  explicit IdempotencyKeys(store::Store* store) : store_(store) {}

  // The run `key` created, or "" when none did; a store read error as is.
  absl::StatusOr<std::string> Find(const std::string& key) const;
  // `key` created `run_id`: remembered, and written to `writes` with the run.
  void Record(const std::string& key, const std::string& run_id, store::WriteBatch& writes);
  // A recovered run's key (already stored).
  void Remember(const std::string& key, const std::string& run_id) { by_key_[key] = run_id; }
  // Retention deleted the runs of `deletion`, their keys with them.
  void ForgetDeleted(const RunDeletion& deletion);

 private:
  store::Store* const store_;
  absl::flat_hash_map<std::string, std::string> by_key_;  // key -> run id
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_IDEMPOTENCY_KEYS_H_
