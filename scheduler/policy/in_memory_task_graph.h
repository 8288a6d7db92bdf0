#ifndef TASKBOARD_SCHEDULER_POLICY_IN_MEMORY_TASK_GRAPH_H_
#define TASKBOARD_SCHEDULER_POLICY_IN_MEMORY_TASK_GRAPH_H_

// A TaskGraph held in a map, for tests and benchmarks (the engine implements
// TaskGraph over its own run state instead).

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/policy/task_graph.h"
#include "scheduler/policy/task_key.h"

namespace taskboard::policy {

class InMemoryTaskGraph : public TaskGraph {
 public:
  // Adds or replaces `task`.
  void AddTask(const TaskKey& task, std::vector<TaskKey> deps, bool completed = false);
  // Marks a known or unknown task (unknown ones get no deps).
  void SetCompleted(const TaskKey& task, bool completed);

  std::vector<TaskKey> DirectDeps(const TaskKey& task) const override;
  bool IsCompleted(const TaskKey& task) const override;

 private:
  struct Node {
    std::vector<TaskKey> deps;
    bool completed = false;
  };
  absl::flat_hash_map<TaskKey, Node> nodes_;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_IN_MEMORY_TASK_GRAPH_H_
