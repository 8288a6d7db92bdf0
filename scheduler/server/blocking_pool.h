#ifndef TASKBOARD_SCHEDULER_SERVER_BLOCKING_POOL_H_
#define TASKBOARD_SCHEDULER_SERVER_BLOCKING_POOL_H_

// A few threads for work that may block on the disk (store reads for GetRun,
// ListRuns, GetTask, WatchRun replays, saved flows), so gRPC callback
// reactions never block (docs/design.md#threads). Thread-safe.

#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace taskboard::server {

class BlockingPool {
 public:
  explicit BlockingPool(int threads);
  ~BlockingPool();  // runs what was queued, then joins
  void Run(std::function<void()> work);

 private:
  void Work();
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !queue_.empty() || stopping_;
  }
  absl::Mutex mu_;
  std::vector<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_BLOCKING_POOL_H_
