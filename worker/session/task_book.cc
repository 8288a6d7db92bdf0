#include "worker/session/task_book.h"

#include <algorithm>
#include <utility>

namespace taskboard::worker {

bool TaskBook::Start(const std::string& task_id, const std::string& lease_id) {
  if (free_slots() <= 0 || running_.contains(lease_id)) return false;
  running_.emplace(lease_id, Running{task_id});
  return true;
}

bool TaskBook::Finish(const std::string& lease_id, v1::ConnectRequest report) {
  auto it = running_.find(lease_id);
  if (it == running_.end()) return false;
  if (it->second.revoked) {
    running_.erase(it);
    return false;
  }
  std::string task_id = std::move(it->second.task_id);
  running_.erase(it);
  unacked_.insert_or_assign(lease_id, Unacked{finished_++, std::move(task_id), std::move(report)});
  return true;
}

bool TaskBook::Ack(const std::string& lease_id) { return unacked_.erase(lease_id) > 0; }

std::vector<std::string> TaskBook::Revoke(const std::vector<std::string>& lease_ids) {
  std::vector<std::string> to_cancel;
  for (const std::string& lease_id : lease_ids) {
    Ack(lease_id);
    auto it = running_.find(lease_id);
    if (it != running_.end() && !it->second.revoked) {
      it->second.revoked = true;
      to_cancel.push_back(lease_id);
    }
  }
  return to_cancel;
}

std::vector<v1::HeldTask> TaskBook::Held() const {
  std::vector<v1::HeldTask> held;
  for (const auto& [lease_id, task] : running_) {
    if (task.revoked) continue;
    v1::HeldTask& entry = held.emplace_back();
    entry.set_task_id(task.task_id);
    entry.set_lease_id(lease_id);
  }
  for (const auto& [lease_id, unacked] : unacked_) {
    v1::HeldTask& entry = held.emplace_back();
    entry.set_task_id(unacked.task_id);
    entry.set_lease_id(lease_id);
  }
  std::sort(held.begin(), held.end(), [](const v1::HeldTask& a, const v1::HeldTask& b) {
    return a.lease_id() < b.lease_id();
  });
  return held;
}

std::vector<std::string> TaskBook::HeldLeases() const {
  std::vector<std::string> leases;
  for (const auto& [lease_id, task] : running_) {
    if (!task.revoked) leases.push_back(lease_id);
  }
  for (const auto& [lease_id, unacked] : unacked_) leases.push_back(lease_id);
  std::sort(leases.begin(), leases.end());
  return leases;
}

std::vector<v1::ConnectRequest> TaskBook::UnackedReports() const {
  std::vector<const Unacked*> oldest_first;
  oldest_first.reserve(unacked_.size());
  for (const auto& [lease_id, unacked] : unacked_) oldest_first.push_back(&unacked);
  std::sort(oldest_first.begin(), oldest_first.end(),
            [](const Unacked* a, const Unacked* b) { return a->finished < b->finished; });
  std::vector<v1::ConnectRequest> reports;
  reports.reserve(oldest_first.size());
  for (const Unacked* unacked : oldest_first) reports.push_back(unacked->report);
  return reports;
}

}  // namespace taskboard::worker
