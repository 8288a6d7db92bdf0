#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_TIMER_QUEUE_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_TIMER_QUEUE_H_

// The engine's timers: one heap for every kind, so timers due at the same
// time fire in one order whatever component armed them. The loop pops what
// is due at the top of each batch and hands each timer to its owner by kind.
//
// Loop thread only.

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace taskboard::engine {

enum class TimerKind {
  kRetry,            // a RETRYING task's backoff is over (workers)
  kTaskTimeout,      // a dispatched task's timeoutSeconds (workers)
  kScheduling,       // an agent's scheduling deadline check (workers)
  kApprovalTimeout,  // an approval's deadline (approvals)
  kRunDeadline,      // a run's deadline (runs; no task)
};

struct Timer {
  int64_t due_ms;
  TimerKind kind;
  std::string run_id;
  std::string task_id;
  std::string token;  // lease id (timeout) or agent (scheduling, no run or task)
  bool operator>(const Timer& other) const { return due_ms > other.due_ms; }
};

class TimerQueue {
 public:
  void Add(Timer timer) { timers_.push(std::move(timer)); }
  // The earliest timer due by `now_ms`, taken off the queue; nullopt when
  // none is due.
  std::optional<Timer> PopDue(int64_t now_ms) {
    if (timers_.empty() || timers_.top().due_ms > now_ms) return std::nullopt;
    Timer timer = timers_.top();
    timers_.pop();
    return timer;
  }
  // When the next timer is due (the loop's wake time); nullopt when none is.
  std::optional<int64_t> NextDueMs() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.top().due_ms;
  }
  size_t size() const { return timers_.size(); }

 private:
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_TIMER_QUEUE_H_
