#include "scheduler/dispatch/lease_table.h"

#include <utility>

namespace taskboard::dispatch {

void LeaseTable::Add(Lease lease) {
  std::string id = lease.lease_id;
  leases_[id] = std::move(lease);
}

const Lease* LeaseTable::Find(absl::string_view lease_id) const {
  auto it = leases_.find(lease_id);
  return it == leases_.end() ? nullptr : &it->second;
}

Lease* LeaseTable::FindMutable(absl::string_view lease_id) {
  auto it = leases_.find(lease_id);
  return it == leases_.end() ? nullptr : &it->second;
}

void LeaseTable::Remove(absl::string_view lease_id) { leases_.erase(lease_id); }

std::vector<Lease> LeaseTable::ExpireBefore(int64_t now_ms) {
  std::vector<Lease> expired;
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.expires_ms <= now_ms) {
      expired.push_back(std::move(it->second));
      leases_.erase(it++);
    } else {
      ++it;
    }
  }
  return expired;
}

std::vector<Lease> LeaseTable::HeldBy(uint64_t stream_id) const {
  std::vector<Lease> held;
  for (const auto& [id, lease] : leases_) {
    if (lease.stream_id == stream_id) held.push_back(lease);
  }
  return held;
}

std::vector<Lease> LeaseTable::OrphansOf(absl::string_view worker_id) const {
  std::vector<Lease> orphans;
  for (const auto& [id, lease] : leases_) {
    if (lease.stream_id == 0 && lease.worker_id == worker_id) orphans.push_back(lease);
  }
  return orphans;
}

}  // namespace taskboard::dispatch
