#include "scheduler/policy/in_memory_task_graph.h"

#include <utility>

namespace taskboard::policy {

void InMemoryTaskGraph::AddTask(const TaskKey& task, std::vector<TaskKey> deps, bool completed) {
  nodes_[task] = Node{std::move(deps), completed};
}

void InMemoryTaskGraph::SetCompleted(const TaskKey& task, bool completed) {
  nodes_[task].completed = completed;
}

std::vector<TaskKey> InMemoryTaskGraph::DirectDeps(const TaskKey& task) const {
  auto it = nodes_.find(task);
  return it == nodes_.end() ? std::vector<TaskKey>{} : it->second.deps;
}

bool InMemoryTaskGraph::IsCompleted(const TaskKey& task) const {
  auto it = nodes_.find(task);
  return it != nodes_.end() && it->second.completed;
}

}  // namespace taskboard::policy
