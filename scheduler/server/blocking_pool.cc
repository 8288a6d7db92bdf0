#include "scheduler/server/blocking_pool.h"

#include <utility>

namespace taskboard::server {

BlockingPool::BlockingPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

BlockingPool::~BlockingPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

void BlockingPool::Run(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(work));
}

void BlockingPool::Work() {
  while (true) {
    std::function<void()> work;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &BlockingPool::HasWorkOrStopping));
      if (queue_.empty()) return;
      work = std::move(queue_.front());
      queue_.erase(queue_.begin());
    }
    work();
  }
}

}  // namespace taskboard::server
