#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_TASKS_CREATED_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_TASKS_CREATED_H_

// Announces the tasks a step of a run added (a submitted board's 10,000, a
// map's items, a plan's steps) in `tasks_created` events instead of one
// `task_change` each: one stored key and one event per chunk rather than per
// task, which was a third of a large SubmitRun's commit (decision 117).
//
// Each event holds whole tasks and stays within both the scheduler's
// --max-event-bytes and kTasksCreatedChunkBytes, so FitEventToLimit never
// cuts one (a follower applies every task it carries, like a task_change).
// A task too large for an event of its own goes out as a `task_change`,
// which FitEventToLimit cuts as before.

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// The most one tasks_created event carries, well under a watch response's
// budget, so it goes out batched with the events around it and stays a
// modest JSON line for HTTP followers (a 10,000-task board: ~6 events).
inline constexpr int64_t kTasksCreatedChunkBytes = 256 << 10;

class TasksCreatedEvents {
 public:
  // `run_id` is the run the events belong to (its length counts against
  // the limit); `max_event_bytes` is --max-event-bytes.
  TasksCreatedEvents(absl::string_view run_id, int64_t max_event_bytes);

  // Adds a copy of `task` to the event being filled, or to a new one when
  // it would not fit.
  void Add(const v1::Task& task);

  // Moves the events, in the order the tasks were added, to the end of `out`
  // (payload only: the engine assigns seq, run_id and ts).
  void AppendTo(std::vector<v1::RunEvent>& out);

 private:
  int64_t limit_;
  std::vector<v1::RunEvent> events_;
  int64_t filled_ = 0;  // encoded bytes of the tasks in events_.back()
  bool open_ = false;   // whether events_.back() takes more tasks
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_TASKS_CREATED_H_
