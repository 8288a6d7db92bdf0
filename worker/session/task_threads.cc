#include "worker/session/task_threads.h"

#include <algorithm>
#include <utility>

namespace taskboard::worker {

struct TaskThreads::Slot {
  // Only this slot's thread waits on `mu` (for a task or the stop), so the
  // unlock that hands it a task evaluates one condition and wakes one thread.
  // A pool-wide mutex with a condition per thread made every hand-off, and
  // every thread going idle, evaluate the conditions of all idle threads.
  absl::Mutex mu;
  std::function<void()> task ABSL_GUARDED_BY(mu);
  bool stop ABSL_GUARDED_BY(mu) = false;  // the pool is being destroyed
  // In the pool's idle_ (guarded by the pool's mu_).
  bool idle = false;
  std::thread thread;

  bool Woken() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return task != nullptr || stop; }
};

TaskThreads::TaskThreads(size_t keep_idle, absl::Duration idle_timeout)
    : keep_idle_(keep_idle), idle_timeout_(idle_timeout) {}

TaskThreads::~TaskThreads() {
  std::vector<Slot*> slots;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    slots = std::move(all_);
    slots.insert(slots.end(), exited_.begin(), exited_.end());
    all_.clear();
    exited_.clear();
    idle_.clear();
  }
  for (Slot* slot : slots) {
    {
      absl::MutexLock lock(&slot->mu);
      slot->stop = true;
    }
    slot->thread.join();  // after its task, if one is running
    delete slot;
  }
}

void TaskThreads::Run(std::function<void()> task) {
  Slot* slot = nullptr;
  std::vector<Slot*> exited;
  {
    absl::MutexLock lock(&mu_);
    exited.swap(exited_);
    if (!idle_.empty()) {
      slot = idle_.back();  // the most recently used: its stack is warm
      idle_.pop_back();
      slot->idle = false;
    } else {
      auto* fresh = new Slot;
      {
        absl::MutexLock slot_lock(&fresh->mu);
        fresh->task = std::move(task);
      }
      all_.push_back(fresh);
      // Under mu_, so an exit (Retire) and the join that follows see
      // `thread` set.
      fresh->thread = std::thread([this, fresh] { Loop(fresh); });
    }
  }
  if (slot != nullptr) {
    // Out of the pool's mu_: the thread it wakes does not wait for it.
    absl::MutexLock lock(&slot->mu);
    slot->task = std::move(task);
  }
  for (Slot* done : exited) {
    done->thread.join();
    delete done;
  }
}

size_t TaskThreads::idle_threads() const {
  absl::MutexLock lock(&mu_);
  return idle_.size();
}

void TaskThreads::Loop(Slot* slot) {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&slot->mu);
      const bool woken =
          slot->mu.AwaitWithTimeout(absl::Condition(slot, &Slot::Woken), idle_timeout_);
      // A task handed over before the stop still runs: the destructor waits
      // for it.
      if (woken && slot->task == nullptr) return;  // stopped
      task = std::move(slot->task);
      slot->task = nullptr;
    }
    if (task == nullptr) {
      if (Retire(slot)) return;
      continue;
    }
    task();
    task = nullptr;  // what it captured goes now, not when the next one comes
    absl::MutexLock lock(&mu_);
    if (stopping_) continue;  // the stop is on its way
    slot->idle = true;
    idle_.push_back(slot);
  }
}

bool TaskThreads::Retire(Slot* slot) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || !slot->idle || idle_.size() <= keep_idle_) return false;
  idle_.erase(std::find(idle_.begin(), idle_.end(), slot));
  slot->idle = false;
  all_.erase(std::find(all_.begin(), all_.end(), slot));
  exited_.push_back(slot);  // joined by the next Run, or the destructor
  return true;
}

}  // namespace taskboard::worker
