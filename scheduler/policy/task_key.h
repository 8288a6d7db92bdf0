#ifndef TASKBOARD_SCHEDULER_POLICY_TASK_KEY_H_
#define TASKBOARD_SCHEDULER_POLICY_TASK_KEY_H_

// Identifies a task within a request. A request (root run + its child runs)
// shares one ledger, and task ids are unique only within their run, so the
// ledger and the policies key tasks by both.

#include <string>
#include <utility>

namespace taskboard::policy {

struct TaskKey {
  std::string run_id;
  std::string task_id;

  friend bool operator==(const TaskKey& a, const TaskKey& b) {
    return a.run_id == b.run_id && a.task_id == b.task_id;
  }
  friend bool operator!=(const TaskKey& a, const TaskKey& b) { return !(a == b); }

  template <typename H>
  friend H AbslHashValue(H state, const TaskKey& key) {
    return H::combine(std::move(state), key.run_id, key.task_id);
  }
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_TASK_KEY_H_
