#ifndef TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_
#define TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_

// The in-sync replica set as kept in etcd (`/<prefix>/<cluster>/in_sync`):
// the replicas that hold every write the leader of `epoch` acknowledged, so
// the only ones (with that leader) that may take over without losing one
// (Kafka's ISR, Patroni's sync key). Only the leader writes it, with a Txn
// conditioned on its own epoch (leader_election.h), so a deposed leader can
// never change it.
//
// Stored as JSON: {"epoch": 42, "leader": "a", "replicas": ["b"]}, plus
// "index" once known, and
// "successor" and "successor_until_ms" during a handover by hand
// (docs/operations.md#failing-over-by-hand).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace taskboard::ha {

struct InSyncSet {
  InSyncSet() = default;
  InSyncSet(int64_t epoch, std::string leader, std::vector<std::string> replicas)
      : epoch(epoch), leader(std::move(leader)), replicas(std::move(replicas)) {}

  int64_t epoch = 0;
  std::string leader;                 // the candidate id of the leader of `epoch`
  std::vector<std::string> replicas;  // candidate ids, without the leader
  // Every member held the log up to this index when the set was written: a
  // member whose store holds less (wiped, or restored from an older backup)
  // lacks acknowledged writes and must not campaign (docs/decisions.md,
  // decision 213). 0: unknown (a set written before this field).
  uint64_t index = 0;
  // A switchover's target, or a replica promoted by force: until
  // `successor_until` only it may campaign (so the old leader and the other
  // members stand aside); after that the set's usual rule holds again, so a
  // target that died during the handover does not leave the cluster without
  // a leader for good. "": no handover.
  std::string successor;
  absl::Time successor_until = absl::InfinitePast();

  // Whether `replica` may campaign at `now` under this set (the leader of
  // its epoch, a member, or the successor while it is named).
  bool MayCampaign(const std::string& replica, absl::Time now) const;

  bool operator==(const InSyncSet& other) const {
    return epoch == other.epoch && leader == other.leader && replicas == other.replicas &&
           index == other.index && successor == other.successor && successor_until == other.successor_until;
  }
};

std::string EncodeInSyncSet(const InSyncSet& set);
// INVALID_ARGUMENT naming what is wrong when `text` is not an encoded set.
absl::StatusOr<InSyncSet> DecodeInSyncSet(absl::string_view text);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_
