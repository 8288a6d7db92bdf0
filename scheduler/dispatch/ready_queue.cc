#include "scheduler/dispatch/ready_queue.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace taskboard::dispatch {

void ReadyQueue::Push(absl::string_view agent, ReadyEntry entry) {
  if (queues_[agent].insert(std::move(entry)).second) ++size_;
}

bool ReadyQueue::Empty(absl::string_view agent) const {
  auto it = queues_.find(agent);
  return it == queues_.end() || it->second.empty();
}

ReadyEntry ReadyQueue::Pop(absl::string_view agent) {
  auto& queue = queues_.find(agent)->second;
  ReadyEntry entry = std::move(queue.extract(queue.begin()).value());
  --size_;
  return entry;
}

std::vector<std::string> ReadyQueue::AgentsWithWork() const {
  std::vector<std::string> agents;
  for (const auto& [agent, queue] : queues_) {
    if (!queue.empty()) agents.push_back(agent);
  }
  return agents;
}

size_t ReadyQueue::Depth(absl::string_view agent) const {
  auto it = queues_.find(agent);
  return it == queues_.end() ? 0 : it->second.size();
}

std::optional<int64_t> ReadyQueue::OldestReadyMs() const {
  std::optional<int64_t> oldest;
  for (const auto& [agent, queue] : queues_) {
    // Within one priority entries are ordered by ready_ms, so the first of
    // each priority group is that group's oldest; jump group to group.
    auto it = queue.begin();
    while (it != queue.end()) {
      oldest = oldest.has_value() ? std::min(*oldest, it->ready_ms) : it->ready_ms;
      if (it->priority == std::numeric_limits<int32_t>::min()) break;
      ReadyEntry next_group;
      next_group.priority = it->priority - 1;
      next_group.ready_ms = std::numeric_limits<int64_t>::min();
      next_group.order = std::numeric_limits<int64_t>::min();
      it = queue.lower_bound(next_group);
    }
  }
  return oldest;
}

}  // namespace taskboard::dispatch
