#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_OBSERVATION_CACHE_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_OBSERVATION_CACHE_H_

// The bounded cache of ledger observation bodies shared by every request the
// engine runs (the scheduler's --ledger-cache-mb): the request ledgers keep
// only their indexes in memory and read the bodies they select through it,
// from the store on a miss (ledger_book.h). Least recently used entries are
// evicted once the charged bytes pass the budget; a budget of 0 caches
// nothing.
//
// An entry is charged its serialized size plus a fixed overhead for the
// message, its key and the bookkeeping: an estimate of what it holds, close
// enough to keep the cache within its budget's order of magnitude.
//
// Owned by the engine loop; not thread-safe.

#include <cstdint>
#include <list>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

class ObservationCache {
 public:
  explicit ObservationCache(int64_t budget_bytes) : budget_bytes_(budget_bytes) {}

  ObservationCache(const ObservationCache&) = delete;
  ObservationCache& operator=(const ObservationCache&) = delete;

  // The cached observation `seq` of `request_id` (now the most recently
  // used), or nullptr; valid until the next Put. Counts a hit or a miss.
  const v1::Observation* Find(const std::string& request_id, int64_t seq);

  // Caches (or replaces) the observation, then evicts the least recently
  // used entries while over budget (an entry larger than the whole budget is
  // not kept).
  void Put(const std::string& request_id, v1::Observation observation);

  int64_t budget_bytes() const { return budget_bytes_; }
  int64_t bytes() const { return bytes_; }
  int64_t entries() const { return static_cast<int64_t>(by_key_.size()); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t evictions() const { return evictions_; }

 private:
  using Key = std::pair<std::string, int64_t>;
  struct Entry {
    Key key;
    v1::Observation observation;
    int64_t charge = 0;
  };

  void Evict();

  int64_t budget_bytes_;
  int64_t bytes_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t evictions_ = 0;
  // Most recently used first.
  std::list<Entry> entries_;
  absl::flat_hash_map<Key, std::list<Entry>::iterator> by_key_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_OBSERVATION_CACHE_H_
