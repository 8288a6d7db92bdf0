#include "scheduler/ha/replica_progress.h"

#include <algorithm>
#include <functional>

#include "absl/time/clock.h"

namespace taskboard::ha {

void ReplicaProgress::Connected(const std::string& replica_id, uint64_t durable_index) {
  absl::MutexLock lock(&mu_);
  Replica& replica = replicas_[replica_id];
  replica.id = replica_id;
  replica.durable_index = durable_index;
  replica.connected = true;
}

void ReplicaProgress::Disconnected(const std::string& replica_id) {
  absl::MutexLock lock(&mu_);
  if (auto it = replicas_.find(replica_id); it != replicas_.end()) it->second.connected = false;
}

void ReplicaProgress::Acked(const std::string& replica_id, uint64_t durable_index) {
  absl::MutexLock lock(&mu_);
  Replica& replica = replicas_[replica_id];
  replica.id = replica_id;
  replica.durable_index = std::max(replica.durable_index, durable_index);
  replica.last_ack = absl::Now();
}

uint64_t ReplicaProgress::DurableOnLocked(size_t count) const {
  if (count == 0) return UINT64_MAX;
  std::vector<uint64_t> durable;
  for (const auto& [id, replica] : replicas_) {
    if (replica.connected) durable.push_back(replica.durable_index);
  }
  if (durable.size() < count) return 0;
  std::nth_element(durable.begin(), durable.begin() + (count - 1), durable.end(),
                   std::greater<uint64_t>());
  return durable[count - 1];
}

uint64_t ReplicaProgress::DurableOn(size_t count) const {
  absl::MutexLock lock(&mu_);
  return DurableOnLocked(count);
}

bool ReplicaProgress::WaitDurable(uint64_t index, size_t count, absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto reached = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return DurableOnLocked(count) >= index; };
  return mu_.AwaitWithDeadline(absl::Condition(&reached), deadline);
}

uint64_t ReplicaProgress::DurableOnAllLocked(const std::vector<std::string>& replicas) const {
  if (replicas.empty()) return 0;
  uint64_t durable = UINT64_MAX;
  for (const std::string& id : replicas) {
    auto found = replicas_.find(id);
    if (found == replicas_.end()) return 0;
    durable = std::min(durable, found->second.durable_index);
  }
  return durable;
}

uint64_t ReplicaProgress::DurableOnAll(const std::vector<std::string>& replicas) const {
  absl::MutexLock lock(&mu_);
  return DurableOnAllLocked(replicas);
}

bool ReplicaProgress::WaitDurableOnAll(const std::vector<std::string>& replicas, uint64_t index,
                                       absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto reached = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return DurableOnAllLocked(replicas) >= index;
  };
  return mu_.AwaitWithDeadline(absl::Condition(&reached), deadline);
}

std::vector<ReplicaProgress::Replica> ReplicaProgress::Snapshot() const {
  absl::MutexLock lock(&mu_);
  std::vector<Replica> all;
  for (const auto& [id, replica] : replicas_) all.push_back(replica);
  return all;
}

}  // namespace taskboard::ha
