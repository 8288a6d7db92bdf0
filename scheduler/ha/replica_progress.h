#ifndef TASKBOARD_SCHEDULER_HA_REPLICA_PROGRESS_H_
#define TASKBOARD_SCHEDULER_HA_REPLICA_PROGRESS_H_

// The leader's view of how far each follower is durable, from its acks:
// what the commit path waits on before it acknowledges a batch to anyone
// (at least --ha-sync-replicas followers hold it), and what decides who may
// join the in-sync set. A follower counts from its first hello until its
// stream ends.
//
// Thread safety: safe for concurrent use.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace taskboard::ha {

class ReplicaProgress {
 public:
  struct Replica {
    std::string id;
    uint64_t durable_index = 0;
    bool connected = false;
    absl::Time last_ack;
  };

  // A follower's stream started; it holds `durable_index` (from its hello).
  void Connected(const std::string& replica_id, uint64_t durable_index);
  void Disconnected(const std::string& replica_id);
  void Acked(const std::string& replica_id, uint64_t durable_index);

  // The highest index that at least `count` connected followers hold
  // durably (0 when fewer are connected).
  uint64_t DurableOn(size_t count) const;
  // Waits until DurableOn(count) >= index; false at `deadline`.
  bool WaitDurable(uint64_t index, size_t count, absl::Time deadline) const;
  // The highest index every one of `replicas` holds durably, connected or
  // not (what it acknowledged stays on its disk); 0 for an empty list or
  // when one of them never connected.
  uint64_t DurableOnAll(const std::vector<std::string>& replicas) const;
  // Waits until DurableOnAll(replicas) >= index; false at `deadline`.
  bool WaitDurableOnAll(const std::vector<std::string>& replicas, uint64_t index,
                        absl::Time deadline) const;

  std::vector<Replica> Snapshot() const;

 private:
  uint64_t DurableOnLocked(size_t count) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  uint64_t DurableOnAllLocked(const std::vector<std::string>& replicas) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, Replica> replicas_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_REPLICA_PROGRESS_H_
