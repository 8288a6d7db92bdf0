#include "scheduler/ha/follower_applier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace taskboard::ha {

absl::StatusOr<std::unique_ptr<FollowerApplier>> FollowerApplier::Create(ReplicaDb* db) {
  absl::StatusOr<LogPosition> position = db->Position();
  if (!position.ok()) return position.status();
  return std::unique_ptr<FollowerApplier>(new FollowerApplier(db, *position));
}

FollowerApplier::FollowerApplier(ReplicaDb* db, LogPosition position)
    : db_(db), highest_epoch_(position.epoch), position_(position) {}

void FollowerApplier::ObserveEpoch(uint64_t epoch) {
  uint64_t seen = highest_epoch_.load();
  while (epoch > seen && !highest_epoch_.compare_exchange_weak(seen, epoch)) {
  }
}

LogPosition FollowerApplier::position() const {
  absl::MutexLock lock(&mu_);
  return position_;
}

absl::StatusOr<LogPosition> FollowerApplier::Apply(const std::vector<LogEntry>& entries) {
  LogPosition position = this->position();
  absl::Status refused;
  size_t written = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const LogEntry& entry = entries[i];
    if (entry.position.epoch < highest_epoch_.load() || entry.position.epoch < position.epoch) {
      refused = absl::FailedPreconditionError(absl::StrCat(
          "refused entry ", entry.position.index, " of epoch ", entry.position.epoch, ": epoch ",
          std::max(highest_epoch_.load(), position.epoch), " was seen already (a deposed leader)"));
      break;
    }
    if (entry.position.index != position.index + 1) {
      refused = absl::OutOfRangeError(absl::StrCat("entry ", entry.position.index,
                                                   " does not follow the follower's last entry ",
                                                   position.index, "; resynchronize"));
      break;
    }
    const bool last = i + 1 == entries.size();
    absl::Status applied = db_->Apply(*entry.batch, entry.position, /*sync=*/last);
    if (!applied.ok()) {
      refused = applied;
      break;
    }
    ++written;
    position = entry.position;
    ObserveEpoch(position.epoch);
  }
  // Entries written before a refusal were not synced: they are now, so that
  // what position() reports is durable.
  if (!refused.ok() && written > 0) {
    if (absl::Status synced = db_->Sync(); !synced.ok()) return synced;
  }
  {
    absl::MutexLock lock(&mu_);
    position_ = position;
  }
  if (!refused.ok()) return refused;
  return position;
}

}  // namespace taskboard::ha
