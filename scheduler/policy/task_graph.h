#ifndef TASKBOARD_SCHEDULER_POLICY_TASK_GRAPH_H_
#define TASKBOARD_SCHEDULER_POLICY_TASK_GRAPH_H_

// What the flow policies need to know about a request's tasks. The engine
// implements it over its run state; tests and benchmarks use
// InMemoryTaskGraph.

#include <vector>

#include "scheduler/policy/task_key.h"

namespace taskboard::policy {

class TaskGraph {
 public:
  virtual ~TaskGraph() = default;

  // The tasks `task` declared as dependencies, already expanded (a taskflow
  // phase that depends on a map phase depends on every item task). May name
  // tasks of other runs of the request. Unknown tasks: empty.
  virtual std::vector<TaskKey> DirectDeps(const TaskKey& task) const = 0;

  // Whether `task` has completed successfully (TASK_STATE_COMPLETED).
  virtual bool IsCompleted(const TaskKey& task) const = 0;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_TASK_GRAPH_H_
