#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_LEDGER_BOOK_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_LEDGER_BOOK_H_

// The observation ledgers (docs/semantics.md#observation-ledger) of the requests the engine is
// running. Durably, every observation is in the store's ledger column
// (entries by seq plus an index by task), written in the engine's batch. In
// memory, each request has a policy::RequestLedger holding only its indexes
// (tens of bytes per call), and the bodies a selection needs come through
// this book, the ledgers' ObservationSource: from one ObservationCache
// shared by all requests (bounded in bytes; new entries go in on append),
// and on a miss from the store in one MultiGet per selection. A policy thus
// reads what it selects and nothing else, whatever the ledger's size.
//
// A request's ledger is loaded from the store the first time it is needed
// (a new request has none; a recovered or resumed one gets its indexes
// back, its bodies stay in the store) and forgotten when its runs leave
// memory; its cached bodies age out of the cache.
//
// Owned by the engine loop; not thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/tool_calls/observation_cache.h"
#include "scheduler/policy/observation_source.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

class LedgerBook : public policy::ObservationSource {
 public:
  // The scheduler's default --ledger-cache-mb.
  static constexpr int64_t kDefaultCacheBytes = int64_t{256} << 20;

  explicit LedgerBook(store::Store* store, int64_t cache_bytes = kDefaultCacheBytes)
      : store_(store), cache_(cache_bytes) {}

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

  // policy::ObservationSource: cached bodies, the rest from the store in one
  // MultiGet (then cached). Errors: the store's read error as is; DATA_LOSS
  // naming the request and seq for an entry missing or unparseable.
  absl::StatusOr<std::vector<v1::Observation>> Read(const std::string& request_id,
                                                    absl::Span<const int64_t> seqs) override;
  void Appended(const std::string& request_id, const v1::Observation& observation) override;

  const ObservationCache& cache() const { return cache_; }

 private:
  store::Store* store_;
  ObservationCache cache_;
  absl::flat_hash_map<std::string, std::unique_ptr<policy::RequestLedger>> ledgers_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_LEDGER_BOOK_H_
