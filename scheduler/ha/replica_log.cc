#include "scheduler/ha/replica_log.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace taskboard::ha {
namespace {

std::string Describe(LogPosition position) {
  return absl::StrCat("(epoch ", position.epoch, ", index ", position.index, ")");
}

}  // namespace

ReplicaLog::ReplicaLog(ReplicaLogOptions options, LogPosition last)
    : options_(options), boundary_(last), last_(last) {}

void ReplicaLog::Reset(LogPosition last) {
  absl::MutexLock lock(&mu_);
  entries_.clear();
  bytes_ = 0;
  boundary_ = last;
  last_ = last;
}

absl::Status ReplicaLog::Append(LogEntry entry) {
  {
    absl::MutexLock lock(&mu_);
    if (entry.position.index != last_.index + 1 || entry.position.epoch < last_.epoch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "replication log: cannot append ", Describe(entry.position), " after ", Describe(last_)));
    }
    last_ = entry.position;
    bytes_ += entry.batch->size();
    entries_.push_back(std::move(entry));
    TrimLocked();
  }
  absl::MutexLock lock(&listeners_mu_);
  for (const auto& [id, listener] : listeners_) listener();
  return absl::OkStatus();
}

void ReplicaLog::TrimLocked() {
  const absl::Time now = absl::Now();
  uint64_t keep_from = UINT64_MAX;
  for (auto it = pins_.begin(); it != pins_.end();) {
    if (it->second.until <= now) {
      it = pins_.erase(it);
      continue;
    }
    keep_from = std::min(keep_from, it->second.index);
    ++it;
  }
  while (!entries_.empty() &&
         (entries_.size() > options_.max_entries || bytes_ > options_.max_bytes) &&
         entries_.front().position.index < keep_from) {
    boundary_ = entries_.front().position;
    bytes_ -= entries_.front().batch->size();
    entries_.pop_front();
  }
}

LogPosition ReplicaLog::last() const {
  absl::MutexLock lock(&mu_);
  return last_;
}

uint64_t ReplicaLog::first_index() const {
  absl::MutexLock lock(&mu_);
  return boundary_.index + 1;
}

absl::StatusOr<uint64_t> ReplicaLog::ResumeFrom(LogPosition follower_last) const {
  absl::MutexLock lock(&mu_);
  if (follower_last.index > last_.index) {
    return absl::FailedPreconditionError(
        absl::StrCat("the follower is at ", Describe(follower_last), ", ahead of the leader's ",
                     Describe(last_), ": its log diverged"));
  }
  if (follower_last.index < boundary_.index) {
    return absl::FailedPreconditionError(
        absl::StrCat("the follower is at ", Describe(follower_last),
                     ", behind the leader's log, which starts after ", Describe(boundary_)));
  }
  const uint64_t leader_epoch =
      follower_last.index == boundary_.index
          ? boundary_.epoch
          : entries_[follower_last.index - boundary_.index - 1].position.epoch;
  if (leader_epoch != follower_last.epoch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the follower's entry ", follower_last.index, " is from epoch ", follower_last.epoch,
        ", the leader's from epoch ", leader_epoch, ": its log diverged"));
  }
  return follower_last.index + 1;
}

absl::StatusOr<std::vector<LogEntry>> ReplicaLog::Read(uint64_t from, size_t max_entries,
                                                       size_t max_bytes) const {
  absl::MutexLock lock(&mu_);
  if (from <= boundary_.index) {
    return absl::OutOfRangeError(absl::StrCat("replication log: entry ", from,
                                              " was dropped (the log starts at ",
                                              boundary_.index + 1, ")"));
  }
  std::vector<LogEntry> found;
  size_t bytes = 0;
  for (uint64_t i = from - boundary_.index - 1; i < entries_.size(); ++i) {
    const LogEntry& entry = entries_[i];
    if (!found.empty() &&
        (found.size() >= max_entries || bytes + entry.batch->size() > max_bytes)) {
      break;
    }
    bytes += entry.batch->size();
    found.push_back(entry);
  }
  return found;
}

ReplicaLog::Lag ReplicaLog::LagAfter(uint64_t durable_index) const {
  absl::MutexLock lock(&mu_);
  Lag lag;
  if (durable_index >= last_.index) return lag;
  lag.batches = last_.index - durable_index;
  // Newest first: a follower is usually a few entries behind.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->position.index <= durable_index) break;
    lag.bytes += it->batch->size();
    lag.oldest_unix_ms = it->leader_unix_ms;
  }
  return lag;
}

uint64_t ReplicaLog::AddListener(std::function<void()> listener) {
  absl::MutexLock lock(&listeners_mu_);
  const uint64_t id = next_listener_++;
  listeners_[id] = std::move(listener);
  return id;
}

void ReplicaLog::RemoveListener(uint64_t id) {
  absl::MutexLock lock(&listeners_mu_);
  listeners_.erase(id);
}

uint64_t ReplicaLog::Pin(uint64_t index, absl::Time until) {
  absl::MutexLock lock(&mu_);
  const uint64_t id = next_pin_++;
  pins_[id] = PinRecord{index, until};
  return id;
}

void ReplicaLog::Repin(uint64_t id, absl::Time until) {
  absl::MutexLock lock(&mu_);
  if (auto it = pins_.find(id); it != pins_.end()) it->second.until = until;
}

void ReplicaLog::Unpin(uint64_t id) {
  absl::MutexLock lock(&mu_);
  pins_.erase(id);
}

}  // namespace taskboard::ha
