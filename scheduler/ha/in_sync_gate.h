#ifndef TASKBOARD_SCHEDULER_HA_IN_SYNC_GATE_H_
#define TASKBOARD_SCHEDULER_HA_IN_SYNC_GATE_H_

// The leader's ReplicationGate (scheduler/engine/core/replication_gate.h):
// a batch's effects (replies, assignments, watch events) are released once
// every member of the in-sync set holds the batch durably, the set has at
// least --ha-sync-replicas members, and the lease is still valid
// (docs/high-availability.md#acknowledged-writes). So every acknowledged
// write is on every replica that may take over (leader_election.h only lets
// the set's members campaign), and a fenced or suspended leader releases
// nothing.
//
// The set as the gate counts it follows the set in etcd in the safe order
// (Patroni's, docs/decisions.md decision 170): a member is counted from
// BeginChange, before etcd lists it, and stops counting at Changed, after
// etcd stopped listing it. Between the two (or after an etcd write that
// failed, whose outcome is unknown) a release needs the old and the new
// members alike, and the smaller set's size.
//
// Thread safety: safe for concurrent use; AwaitReleasable is called by the
// commit pipeline's release thread, the membership methods by the role's.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/engine/core/replication_gate.h"
#include "scheduler/ha/replica_progress.h"

namespace taskboard::ha {

struct InSyncGateOptions {
  // --ha-sync-replicas (at least 1).
  size_t sync_replicas = 1;
  // The log index of the store's last written batch (LeaderWriteHook::last).
  std::function<uint64_t()> written_index;
  // Whether this replica still leads within its lease (LeaderElection::IsLeader).
  std::function<bool()> lease_valid;
};

class InSyncGate final : public engine::ReplicationGate {
 public:
  // `progress` outlives the gate. Until the first Changed nothing is
  // released: a new leader counts no member yet.
  InSyncGate(InSyncGateOptions options, const ReplicaProgress* progress);

  uint64_t WrittenIndex() const override;
  bool AwaitReleasable(uint64_t index, absl::Time deadline) override;

  // Before etcd is asked to store `next` as the in-sync set: from now on a
  // release needs `next`'s members too. Returns the highest index released
  // so far, which each member `next` adds must already hold for the change
  // to be safe (the caller checks, and calls Changed with the old set to
  // give up).
  uint64_t BeginChange(const std::vector<std::string>& next);
  // etcd stores `members`: a release needs them, and only them.
  void Changed(const std::vector<std::string>& members);

  // The oldest index a release waits for and since when: what
  // --ha-sync-timeout measures. Nullopt when nothing waits.
  struct Waiting {
    uint64_t index = 0;
    absl::Time since;
  };
  std::optional<Waiting> waiting() const;
  uint64_t released() const;

 private:
  const InSyncGateOptions options_;
  const ReplicaProgress* const progress_;
  mutable absl::Mutex mu_;
  // Every replica that may be listed in etcd now, and the fewest members
  // etcd may list.
  std::vector<std::string> required_ ABSL_GUARDED_BY(mu_);
  size_t confirmed_size_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // moved by every membership change
  uint64_t released_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_IN_SYNC_GATE_H_
