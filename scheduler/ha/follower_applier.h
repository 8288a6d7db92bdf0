#ifndef TASKBOARD_SCHEDULER_HA_FOLLOWER_APPLIER_H_
#define TASKBOARD_SCHEDULER_HA_FOLLOWER_APPLIER_H_

// The follower's side of replication, without the network: it applies the
// leader's log entries to the follower's own RocksDB strictly in order, each
// with its position in the same atomic batch, and says how far the follower
// is durable (what it acknowledges). It refuses
//   - an entry from an epoch older than the newest it has seen (from etcd's
//     leader key, a leader's handshake, or an applied entry): a deposed
//     leader's writes never land, so nothing it writes after losing its
//     lease is acknowledged or visible;
//   - an entry whose index is not the next one (a gap or a repeat): the
//     stream resynchronizes from the follower's position.
// A group of entries costs one fsync: every entry is written, the last one
// synced, which makes the whole WAL durable.
//
// Thread safety: Apply from one thread; the accessors and ObserveEpoch from
// any.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/log_entry.h"
#include "scheduler/ha/replica_db.h"

namespace taskboard::ha {

class FollowerApplier {
 public:
  // Starts at `db`'s stored position (DATA_LOSS / INTERNAL when it cannot
  // be read). `db` outlives the applier.
  static absl::StatusOr<std::unique_ptr<FollowerApplier>> Create(ReplicaDb* db);

  // Entries of epochs older than `epoch` are refused from now on.
  void ObserveEpoch(uint64_t epoch);
  uint64_t highest_epoch_seen() const { return highest_epoch_.load(); }
  // The last entry applied, durable once Apply returned.
  LogPosition position() const;

  // Applies `entries` in order and returns the position of the last one,
  // durable. FAILED_PRECONDITION (fenced) when an entry's epoch is older than
  // the newest seen; OUT_OF_RANGE when an entry's index is not position + 1;
  // INVALID_ARGUMENT / INTERNAL from RocksDB. Entries before a refused one
  // stay applied and are made durable; position() tells how far.
  absl::StatusOr<LogPosition> Apply(const std::vector<LogEntry>& entries);

 private:
  FollowerApplier(ReplicaDb* db, LogPosition position);

  ReplicaDb* const db_;
  std::atomic<uint64_t> highest_epoch_;
  mutable absl::Mutex mu_;
  LogPosition position_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_FOLLOWER_APPLIER_H_
