#ifndef TASKBOARD_WORKER_SESSION_TASK_THREADS_H_
#define TASKBOARD_WORKER_SESSION_TASK_THREADS_H_

// The threads that run agents. Each task runs on a thread of its own (an
// agent may block for minutes on a model or a subprocess), but a thread
// whose task ended waits a while for the next one instead of exiting: a busy
// worker starts a task without creating a thread, and an idle one keeps no
// more than `keep_idle` threads. There is no upper bound: the session's
// slots bound the tasks, plus revoked ones still winding down.
//
// Handing a task over costs one wake-up of the one thread that takes it:
// each thread waits on a mutex of its own, so neither Run nor a thread going
// idle evaluates (or wakes) the other idle threads, however many there are.
// The pool's own mutex only guards the lists, and nobody waits on it.

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
  // Waits for the running tasks to return, then joins every thread. No Run
  // may start once it has begun (not even from a task).
  ~TaskThreads();
  TaskThreads(const TaskThreads&) = delete;
  TaskThreads& operator=(const TaskThreads&) = delete;

  // Runs `task` on an idle thread (the one idle most recently: its stack is
  // warm), or on a new one when none is idle. Never waits for a running task.
  void Run(std::function<void()> task);

  // Threads waiting for a task (their previous one returned).
  size_t idle_threads() const;

 private:
  struct Slot;
  void Loop(Slot* slot);
  // Idle for idle_timeout_: true when `slot` leaves the pool (its thread then
  // exits), false when it stays (it is among the last keep_idle_, or a Run
  // took it meanwhile and its task is on the way).
  bool Retire(Slot* slot);

  const size_t keep_idle_;
  const absl::Duration idle_timeout_;
  mutable absl::Mutex mu_;
  // Idle threads, the most recently idle last.
  std::vector<Slot*> idle_ ABSL_GUARDED_BY(mu_);
  // Every live thread, idle or not.
  std::vector<Slot*> all_ ABSL_GUARDED_BY(mu_);
  // Threads that exited when idle, to join (and free) on the next Run.
  std::vector<Slot*> exited_ ABSL_GUARDED_BY(mu_);
  // The destructor began: threads whose task returns stop instead of idling.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_TASK_THREADS_H_
