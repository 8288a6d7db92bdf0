#include "scheduler/dispatch/ready_queue.h"

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

}  // namespace taskboard::dispatch
