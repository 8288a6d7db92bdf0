#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_SCHEDULING_DEADLINES_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_SCHEDULING_DEADLINES_H_

// When ready tasks whose agent no connected worker offers fail
// (--scheduling-timeout-ms, decision 28), kept per agent instead of per task.
//
// A ready task of an unoffered agent fails `timeout` after the later of the
// moment it became ready and the moment its agent was last offered (its last
// worker left, or the scheduler started): a task recovered after a restart,
// or whose last worker just left, gets the whole timeout for workers to come.
// That is a function of the task's ready time and its agent alone, so the
// engine holds no timer per task (a million pending tasks held a million
// timers with three strings each): it keeps one check per agent, due at the
// earliest deadline of the agent's queued tasks, which fails every task of
// the agent whose deadline passed and arms the next.
//
// Not thread-safe: the engine loop owns it.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::engine {

class SchedulingDeadlines {
 public:
  // `started_ms`: when the scheduler started, which counts as the moment
  // every agent was last offered.
  SchedulingDeadlines(int64_t timeout_ms, int64_t started_ms)
      : timeout_ms_(timeout_ms), started_ms_(started_ms) {}

  // When a task of `agent` ready since `ready_ms` fails if no worker offers
  // the agent by then.
  int64_t DeadlineOf(absl::string_view agent, int64_t ready_ms) const;
  // The latest ready time whose deadline has passed at `now_ms` (tasks ready
  // at or before it fail now), or nullopt when no task of `agent` fails yet.
  std::optional<int64_t> ExpiredUpTo(absl::string_view agent, int64_t now_ms) const;

  // The last worker offering `agent` left at `now_ms`.
  void AgentLost(absl::string_view agent, int64_t now_ms);
  // A worker offers `agent` again: its tasks wait for slots, not a deadline.
  void AgentOffered(absl::string_view agent) { lost_at_.erase(agent); }

  // Records that a check of `agent` is wanted at `due_ms`. True when the
  // caller must arm a timer for it: no check of the agent is armed at or
  // before then.
  bool Arm(absl::string_view agent, int64_t due_ms);
  // The check of `agent` armed for `due_ms` fired. False when that was not
  // the agent's armed check (an earlier one superseded it and ran already).
  bool Fired(absl::string_view agent, int64_t due_ms);

  // Agents with a check armed (for tests and gauges).
  size_t armed() const { return armed_.size(); }

 private:
  int64_t LostAt(absl::string_view agent) const;

  int64_t timeout_ms_;
  int64_t started_ms_;
  // Agents whose last worker left since the start, and when; an agent
  // offered again is dropped, so it holds only agents no worker offers now.
  absl::flat_hash_map<std::string, int64_t> lost_at_;
  // The due time of each agent's armed check.
  absl::flat_hash_map<std::string, int64_t> armed_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_SCHEDULING_DEADLINES_H_
