#ifndef TASKBOARD_TESTS_TESTING_EVENT_TASKS_H_
#define TASKBOARD_TESTS_TESTING_EVENT_TASKS_H_

// The tasks a run event carries whole: a task_change's one task, or each of
// a tasks_created's (the tasks a step added). Tests that read a task's
// history from the event log go through this, as a follower does.

#include <vector>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::testing {

inline std::vector<const v1::Task*> TasksIn(const v1::RunEvent& event) {
  std::vector<const v1::Task*> tasks;
  if (event.has_task_change()) tasks.push_back(&event.task_change().task());
  for (const v1::Task& task : event.tasks_created().tasks()) tasks.push_back(&task);
  return tasks;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_EVENT_TASKS_H_
