#include "worker/session/task_threads.h"

#include <algorithm>
#include <utility>

namespace taskboard::worker {

// Fields are guarded by the pool's mu_.
struct TaskThreads::Slot {
  std::function<void()> task;  // handed over by Run while the thread is idle
  bool stop = false;           // the pool is being destroyed
  std::thread thread;

  static bool Woken(Slot* slot) { return slot->task != nullptr || slot->stop; }
};

TaskThreads::TaskThreads(size_t keep_idle, absl::Duration idle_timeout)
    : keep_idle_(keep_idle), idle_timeout_(idle_timeout) {}

TaskThreads::~TaskThreads() {
  std::vector<Slot*> slots;
  {
    absl::MutexLock lock(&mu_);
    for (Slot* slot : all_) slot->stop = true;
    slots = std::move(all_);
    slots.insert(slots.end(), exited_.begin(), exited_.end());
    all_.clear();
    exited_.clear();
    idle_.clear();
  }
  for (Slot* slot : slots) {
    slot->thread.join();
    delete slot;
  }
}

void TaskThreads::Run(std::function<void()> task) {
  std::vector<Slot*> exited;
  {
    absl::MutexLock lock(&mu_);
    exited.swap(exited_);
    if (!idle_.empty()) {
      Slot* slot = idle_.back();  // the most recently used: its stack is warm
      idle_.pop_back();
      slot->task = std::move(task);
    } else {
      auto* slot = new Slot;
      slot->task = std::move(task);
      all_.push_back(slot);
      // Loop takes mu_ first, so it sees `thread` set.
      slot->thread = std::thread([this, slot] { Loop(slot); });
    }
  }
  for (Slot* slot : exited) {
    slot->thread.join();
    delete slot;
  }
}

void TaskThreads::Loop(Slot* slot) {
  absl::MutexLock lock(&mu_);
  while (true) {
    if (slot->task != nullptr) {
      std::function<void()> task = std::move(slot->task);
      slot->task = nullptr;
      mu_.Unlock();
      task();
      task = nullptr;  // what it captured goes now, not when the next one comes
      mu_.Lock();
      if (slot->stop) return;
      idle_.push_back(slot);
      continue;
    }
    if (slot->stop) return;
    if (mu_.AwaitWithTimeout(absl::Condition(&Slot::Woken, slot), idle_timeout_)) continue;
    // Idle for idle_timeout_: exit unless it is among the last keep_idle_.
    if (idle_.size() <= keep_idle_) continue;
    idle_.erase(std::find(idle_.begin(), idle_.end(), slot));
    all_.erase(std::find(all_.begin(), all_.end(), slot));
    exited_.push_back(slot);  // joined by the next Run, or the destructor
    return;
  }
}

}  // namespace taskboard::worker
