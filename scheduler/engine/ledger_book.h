#ifndef TASKBOARD_SCHEDULER_ENGINE_LEDGER_BOOK_H_
#define TASKBOARD_SCHEDULER_ENGINE_LEDGER_BOOK_H_

// The observation ledgers (SEMANTICS.md 3) of the requests the engine is
// running: each in memory as a policy::RequestLedger, so selection at
// dispatch never reads the store, and durably in the store's ledger column
// (entries by seq plus an index by task), written in the engine's batch.
//
// A request's ledger is loaded from the store the first time it is needed
// (a new request has none; a recovered or resumed one gets its history
// back) and forgotten when its runs leave memory.
//
// Owned by the engine loop; not thread-safe.

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

// How a task is named in its request's ledger index: its id in the root run,
// `run_id/task_id` in a child run (task ids are unique only per run).
std::string LedgerTaskName(absl::string_view request_id, absl::string_view run_id,
                           absl::string_view task_id);

class LedgerBook {
 public:
  explicit LedgerBook(store::Store* store) : store_(store) {}

  // The ledger of `request_id`, loaded on first use. DATA_LOSS when a stored
  // entry does not parse or is out of sequence; a store read error as is.
  absl::StatusOr<policy::RequestLedger*> Get(const std::string& request_id);

  // Appends to the request's ledger (seq assigned there) and writes the
  // entry and its task index into `batch`. The ledger must have been loaded
  // with Get in this loop iteration or earlier.
  const v1::Observation& Append(const std::string& request_id, v1::Observation observation,
                                store::WriteBatch& batch);

  void Forget(const std::string& request_id) { ledgers_.erase(request_id); }
  size_t size() const { return ledgers_.size(); }

 private:
  store::Store* store_;
  absl::flat_hash_map<std::string, std::unique_ptr<policy::RequestLedger>> ledgers_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_LEDGER_BOOK_H_
