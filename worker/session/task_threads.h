#ifndef TASKBOARD_WORKER_SESSION_TASK_THREADS_H_
#define TASKBOARD_WORKER_SESSION_TASK_THREADS_H_

// The threads that run agents. Each task runs on a thread of its own (an
// agent may block for minutes on a model or a subprocess), but a thread
// whose task ended waits a while for the next one instead of exiting: a busy
// worker starts a task without creating a thread, and an idle one keeps no
// more than `keep_idle` threads. There is no upper bound: the session's
// slots bound the tasks, plus revoked ones still winding down.

#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace taskboard::worker {

class TaskThreads {
 public:
  // An idle thread exits after `idle_timeout` without work, unless it is one
  // of the last `keep_idle`.
  explicit TaskThreads(size_t keep_idle, absl::Duration idle_timeout = absl::Seconds(10));
  // Waits for the running tasks to return, then joins every thread.
  ~TaskThreads();
  TaskThreads(const TaskThreads&) = delete;
  TaskThreads& operator=(const TaskThreads&) = delete;

  // Runs `task` on an idle thread, or on a new one when none is idle.
  void Run(std::function<void()> task);

 private:
  struct Slot;
  void Loop(Slot* slot);

  const size_t keep_idle_;
  const absl::Duration idle_timeout_;
  absl::Mutex mu_;
  std::vector<Slot*> idle_ ABSL_GUARDED_BY(mu_);
  // Every live thread, idle or not.
  std::vector<Slot*> all_ ABSL_GUARDED_BY(mu_);
  // Threads that exited when idle, to join (and free) on the next Run.
  std::vector<Slot*> exited_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_TASK_THREADS_H_
