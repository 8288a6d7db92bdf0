#ifndef TASKBOARD_SCHEDULER_HA_REPLICA_LOG_H_
#define TASKBOARD_SCHEDULER_HA_REPLICA_LOG_H_

// The leader's in-memory log of recent committed batches, from which
// followers that are connected, or fell slightly behind, are served. It
// holds at most `max_entries` entries and `max_bytes` of batches, dropping
// the oldest, except while a pin holds them (a follower installing a
// checkpoint resumes from the entry after it). A follower whose next entry
// is gone, or whose log diverged from the leader's, bootstraps from a
// checkpoint instead (ResumeFrom says which).
//
// Whether a follower's log matches: the leader knows the epoch of every entry
// it retains and of the one just before the first (the boundary). A follower
// holding (epoch, index) matches when the leader's entry at that index has
// the same epoch (one leader per epoch assigns each index once, so the logs
// agree up to there), as in Raft's log matching.
//
// Thread safety: safe for concurrent use. Append comes from the store's one
// writer; readers are the follower streams. Listeners run on the appending
// thread, outside the log's lock, and must not block.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/ha/log_entry.h"

namespace taskboard::ha {

struct ReplicaLogOptions {
  size_t max_entries = 100'000;
  size_t max_bytes = 256 << 20;
};

class ReplicaLog {
 public:
  // An empty log after `last`, the position of the newest batch already in
  // the leader's store.
  explicit ReplicaLog(ReplicaLogOptions options = {}, LogPosition last = {});

  // Restarts the log after `last` (a store opened at that position), dropping
  // every entry. Pins stay.
  void Reset(LogPosition last);

  // Appends the next entry. INVALID_ARGUMENT when its index is not
  // last().index + 1 or its epoch is older than the last entry's.
  absl::Status Append(LogEntry entry);

  LogPosition last() const;
  // The oldest index still held (last().index + 1 when empty).
  uint64_t first_index() const;

  // The index a follower whose newest entry is `follower_last` continues
  // from. FAILED_PRECONDITION, saying why, when it must bootstrap from a
  // checkpoint instead: it is behind what the log holds, its log diverged
  // from the leader's (another epoch at its index), or it is ahead.
  absl::StatusOr<uint64_t> ResumeFrom(LogPosition follower_last) const;

  // Entries from index `from` on, at most `max_entries` and about `max_bytes`
  // (at least one entry when there is one). Empty when `from` is past the
  // end; OUT_OF_RANGE when it was dropped.
  absl::StatusOr<std::vector<LogEntry>> Read(uint64_t from, size_t max_entries,
                                             size_t max_bytes) const;

  // How far a follower that holds everything up to `durable_index` is
  // behind: the entries after it, the bytes of those the log still holds,
  // and when the leader committed the oldest of those (nullopt: none held).
  // Bytes and age are lower bounds once the log dropped entries it lacks.
  struct Lag {
    uint64_t batches = 0;
    uint64_t bytes = 0;
    std::optional<int64_t> oldest_unix_ms;
  };
  Lag LagAfter(uint64_t durable_index) const;

  // Called after every Append; the id for RemoveListener, which returns only
  // when no call of that listener is running.
  uint64_t AddListener(std::function<void()> listener);
  void RemoveListener(uint64_t id);

  // Keeps every entry from `index` on until `until`; the id for Repin and
  // Unpin.
  uint64_t Pin(uint64_t index, absl::Time until);
  void Repin(uint64_t id, absl::Time until);
  void Unpin(uint64_t id);

 private:
  struct PinRecord {
    uint64_t index;
    absl::Time until;
  };
  void TrimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReplicaLogOptions options_;
  mutable absl::Mutex mu_;
  std::deque<LogEntry> entries_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  LogPosition boundary_ ABSL_GUARDED_BY(mu_);  // the entry just before entries_.front()
  LogPosition last_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, PinRecord> pins_ ABSL_GUARDED_BY(mu_);
  uint64_t next_pin_ ABSL_GUARDED_BY(mu_) = 1;

  absl::Mutex listeners_mu_;  // held while listeners run
  std::map<uint64_t, std::function<void()>> listeners_ ABSL_GUARDED_BY(listeners_mu_);
  uint64_t next_listener_ ABSL_GUARDED_BY(listeners_mu_) = 1;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_REPLICA_LOG_H_
