#include "scheduler/ha/in_sync_gate.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"

namespace taskboard::ha {

InSyncGate::InSyncGate(InSyncGateOptions options, const ReplicaProgress* progress)
    : options_(std::move(options)), progress_(progress) {}

uint64_t InSyncGate::WrittenIndex() const { return options_.written_index(); }

bool InSyncGate::AwaitReleasable(uint64_t index, absl::Time deadline) {
  {
    absl::MutexLock lock(&mu_);
    // The oldest index asked for and not released, from when it was first
    // asked (a saved flow's thread may ask for a later one meanwhile).
    if (index > released_ && (!waiting_.has_value() || index < waiting_->index)) {
      waiting_ = Waiting{index, absl::Now()};
    }
  }
  const size_t needed = std::max<size_t>(options_.sync_replicas, 1);
  while (true) {
    std::vector<std::string> required;
    uint64_t generation;
    {
      absl::MutexLock lock(&mu_);
      if (confirmed_size_ < needed) {
        // Too few members to promise anything: wait for the set to change.
        const uint64_t seen = generation_;
        auto changed = [this, seen]()
                           ABSL_SHARED_LOCKS_REQUIRED(mu_) { return generation_ != seen; };
        if (!mu_.AwaitWithDeadline(absl::Condition(&changed), deadline)) return false;
        continue;
      }
      required = required_;
      generation = generation_;
    }
    if (!progress_->WaitDurableOnAll(required, index, deadline)) return false;
    absl::MutexLock lock(&mu_);
    // The set changed while we waited: judge against the new one.
    if (generation != generation_) continue;
    if (!options_.lease_valid()) {
      // Fenced or suspended: nothing is acknowledged
      // (docs/high-availability.md#acknowledged-writes).
      const bool never = false;  // waits out the deadline, the lock released
      mu_.AwaitWithDeadline(absl::Condition(&never), deadline);
      return false;
    }
    released_ = std::max(released_, index);
    if (waiting_.has_value() && waiting_->index <= released_) waiting_.reset();
    return true;
  }
}

uint64_t InSyncGate::BeginChange(const std::vector<std::string>& next) {
  absl::MutexLock lock(&mu_);
  for (const std::string& id : next) {
    if (std::find(required_.begin(), required_.end(), id) == required_.end()) {
      required_.push_back(id);
    }
  }
  confirmed_size_ = std::min(confirmed_size_, next.size());
  ++generation_;
  return released_;
}

void InSyncGate::Changed(const std::vector<std::string>& members) {
  absl::MutexLock lock(&mu_);
  required_ = members;
  confirmed_size_ = members.size();
  ++generation_;
}

std::optional<InSyncGate::Waiting> InSyncGate::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_;
}

uint64_t InSyncGate::released() const {
  absl::MutexLock lock(&mu_);
  return released_;
}

}  // namespace taskboard::ha
