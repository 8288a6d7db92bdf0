#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_DELETION_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_DELETION_H_

// Deleting a finished root run and everything it left in the store, a few
// thousand keys at a time (--retention, docs/services.md#retention): its
// child runs, then for each run its tasks, events, phase records, prior
// work, spec and idempotency key, the request's observation ledger, and
// last the run records and the retention index entry. The run record goes
// last so a scheduler that dies mid-way finds the run again in the index
// and finishes the job (every step is a delete, so repeating one is
// harmless).
//
// The engine runs one deletion at a time, one Step per loop iteration, so a
// run with 100,000 events never stalls dispatch. In-memory state (cache
// entries, the idempotency map, ledgers) is the engine's to drop once Step
// says the deletion is done.
//
// Not thread-safe; the engine loop owns it.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

class RunDeletion {
 public:
  // Reads the records of `root_run_id` and of its descendants (child runs,
  // recursively). `index_key` is the retention index entry deleted at the
  // end. NOT_FOUND when the root's record is gone (only the index entry is
  // left to delete); FAILED_PRECONDITION when it is not a finished root
  // run; a store error as is.
  // FAILED_PRECONDITION too when the run finished again after
  // `indexed_finished_ms` (resumed since: a newer entry stands for it).
  static absl::StatusOr<RunDeletion> Plan(store::Store& store, const std::string& root_run_id,
                                          int64_t indexed_finished_ms, std::string index_key);

  // Appends up to about `budget` deletes to `batch`, resuming where the
  // previous step stopped (the previous batch must have been committed).
  // True once everything is deleted (after this batch commits).
  absl::StatusOr<bool> Step(store::Store& store, size_t budget, store::WriteBatch& batch);

  const std::string& root_run_id() const { return root_run_id_; }
  // The root first, then its descendants.
  const std::vector<std::string>& run_ids() const { return run_ids_; }
  const std::string& tenant() const { return tenant_; }
  // The idempotency keys of the deleted runs (the engine forgets them).
  const std::vector<std::string>& idempotency_keys() const { return idempotency_keys_; }

 private:
  // One key range to clear, and where the last step stopped in it.
  struct Range {
    store::Column column;
    std::string prefix;
    std::string resume_after;  // "": from the start of the prefix
  };

  RunDeletion() = default;

  std::string root_run_id_;
  std::string tenant_;
  std::vector<std::string> run_ids_;
  std::vector<std::string> idempotency_keys_;
  std::vector<Range> ranges_;
  size_t next_range_ = 0;
  // Deleted one by one once the ranges are empty: specs, idempotency keys,
  // the run records (descendants first) and the index entry.
  std::vector<std::pair<store::Column, std::string>> last_keys_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_DELETION_H_
