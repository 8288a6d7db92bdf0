#ifndef TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_
#define TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_

// The in-sync replica set as kept in etcd (`/<prefix>/<cluster>/in_sync`):
// the replicas that hold every write the leader of `epoch` acknowledged, so
// the only ones (with that leader) that may take over without losing one
// (Kafka's ISR, Patroni's sync key). Only the leader writes it, with a Txn
// conditioned on its own epoch (leader_election.h), so a deposed leader can
// never change it.
//
// Stored as JSON: {"epoch": 42, "leader": "a", "replicas": ["b"]}.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::ha {

struct InSyncSet {
  int64_t epoch = 0;
  std::string leader;                 // the candidate id of the leader of `epoch`
  std::vector<std::string> replicas;  // candidate ids, without the leader

  bool operator==(const InSyncSet& other) const {
    return epoch == other.epoch && leader == other.leader && replicas == other.replicas;
  }
};

std::string EncodeInSyncSet(const InSyncSet& set);
// INVALID_ARGUMENT naming what is wrong when `text` is not an encoded set.
absl::StatusOr<InSyncSet> DecodeInSyncSet(absl::string_view text);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_IN_SYNC_SET_H_
