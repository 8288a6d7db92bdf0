#include "scheduler/dispatch/ready_queue.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace taskboard::dispatch {

void ReadyQueue::Push(absl::string_view agent, ReadyEntry entry) {
  AgentQueue& queue = queues_[agent];
  Entries& tenant = queue.by_tenant[entry.run->tenant];
  if (tenant.insert(std::move(entry)).second) {
    ++queue.size;
    ++size_;
  }
}

bool ReadyQueue::Empty(absl::string_view agent) const { return Depth(agent) == 0; }

ReadyEntry ReadyQueue::Pop(absl::string_view agent) {
  AgentQueue& queue = queues_.find(agent)->second;
  // The best head among the tenants: highest priority, then the tenant
  // served least recently. One tenant (the usual case) is a plain pop.
  auto chosen = queue.by_tenant.begin();
  if (queue.by_tenant.size() > 1) {
    for (auto it = std::next(chosen); it != queue.by_tenant.end(); ++it) {
      const int32_t priority = it->second.begin()->priority;
      const int32_t best = chosen->second.begin()->priority;
      if (priority > best ||
          (priority == best && queue.served[it->first] < queue.served[chosen->first])) {
        chosen = it;
      }
    }
  }
  Entries& tenant = chosen->second;
  ReadyEntry entry = *tenant.begin();
  tenant.erase(tenant.begin());
  queue.served[chosen->first] = ++pops_;
  if (tenant.empty()) queue.by_tenant.erase(chosen);
  --queue.size;
  --size_;
  return entry;
}

std::vector<std::string> ReadyQueue::AgentsWithWork() const {
  std::vector<std::string> agents;
  for (const auto& [agent, queue] : queues_) {
    if (queue.size > 0) agents.push_back(agent);
  }
  return agents;
}

size_t ReadyQueue::Depth(absl::string_view agent) const {
  auto it = queues_.find(agent);
  return it == queues_.end() ? 0 : it->second.size;
}

size_t ReadyQueue::Depth(absl::string_view agent, absl::string_view tenant) const {
  auto it = queues_.find(agent);
  if (it == queues_.end()) return 0;
  auto found = it->second.by_tenant.find(std::string(tenant));
  return found == it->second.by_tenant.end() ? 0 : found->second.size();
}

ReadyQueue::Entries::const_iterator ReadyQueue::NextPriorityGroup(const Entries& queue,
                                                                  const ReadyEntry& entry) {
  if (entry.priority == std::numeric_limits<int32_t>::min()) return queue.end();
  // Compares below every entry of the next priority on ready_ms and order,
  // so it never reaches the run or the task id.
  ReadyEntry next_group;
  next_group.priority = entry.priority - 1;
  next_group.ready_ms = std::numeric_limits<int64_t>::min();
  next_group.order = std::numeric_limits<int64_t>::min();
  return queue.lower_bound(next_group);
}

std::optional<int64_t> ReadyQueue::OldestReadyMs() const {
  std::optional<int64_t> oldest;
  for (const auto& [agent, queue] : queues_) {
    std::optional<int64_t> of_agent = OldestReadyMs(agent);
    if (of_agent.has_value()) oldest = oldest.has_value() ? std::min(*oldest, *of_agent) : of_agent;
  }
  return oldest;
}

std::optional<int64_t> ReadyQueue::OldestReadyMs(absl::string_view agent) const {
  auto found = queues_.find(agent);
  if (found == queues_.end()) return std::nullopt;
  std::optional<int64_t> oldest;
  for (const auto& [tenant, queue] : found->second.by_tenant) {
    // Within one priority entries are ordered by ready_ms, so the first of
    // each priority group is that group's oldest; jump group to group.
    for (auto it = queue.begin(); it != queue.end(); it = NextPriorityGroup(queue, *it)) {
      oldest = oldest.has_value() ? std::min(*oldest, it->ready_ms) : it->ready_ms;
    }
  }
  return oldest;
}

std::vector<ReadyEntry> ReadyQueue::TakeReadyUpTo(absl::string_view agent, int64_t ready_ms) {
  std::vector<ReadyEntry> taken;
  auto found = queues_.find(agent);
  if (found == queues_.end()) return taken;
  AgentQueue& queue = found->second;
  for (auto tenant = queue.by_tenant.begin(); tenant != queue.by_tenant.end();) {
    Entries& entries = tenant->second;
    // Each priority group's entries ready by then are a prefix of the group.
    Entries::const_iterator it = entries.cbegin();
    while (it != entries.cend()) {
      if (it->ready_ms > ready_ms) {
        it = NextPriorityGroup(entries, *it);
        continue;
      }
      taken.push_back(*it);
      it = entries.erase(it);
    }
    if (entries.empty()) {
      tenant = queue.by_tenant.erase(tenant);
    } else {
      ++tenant;
    }
  }
  queue.size -= taken.size();
  size_ -= taken.size();
  return taken;
}

}  // namespace taskboard::dispatch
