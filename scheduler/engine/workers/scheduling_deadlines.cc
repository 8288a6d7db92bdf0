#include "scheduler/engine/workers/scheduling_deadlines.h"

#include <algorithm>

namespace taskboard::engine {

int64_t SchedulingDeadlines::LostAt(absl::string_view agent) const {
  auto it = lost_at_.find(agent);
  return it == lost_at_.end() ? started_ms_ : it->second;
}

int64_t SchedulingDeadlines::DeadlineOf(absl::string_view agent, int64_t ready_ms) const {
  return std::max(ready_ms, LostAt(agent)) + timeout_ms_;
}

std::optional<int64_t> SchedulingDeadlines::ExpiredUpTo(absl::string_view agent,
                                                        int64_t now_ms) const {
  // max(ready, lost) + timeout <= now  <=>  ready <= now - timeout and
  // lost <= now - timeout.
  const int64_t cutoff = now_ms - timeout_ms_;
  if (LostAt(agent) > cutoff) return std::nullopt;
  return cutoff;
}

void SchedulingDeadlines::AgentLost(absl::string_view agent, int64_t now_ms) {
  lost_at_[agent] = now_ms;
}

bool SchedulingDeadlines::Arm(absl::string_view agent, int64_t due_ms) {
  auto [it, added] = armed_.try_emplace(agent, due_ms);
  if (added) return true;
  if (it->second <= due_ms) return false;
  it->second = due_ms;
  return true;
}

bool SchedulingDeadlines::Fired(absl::string_view agent, int64_t due_ms) {
  auto it = armed_.find(agent);
  if (it == armed_.end() || it->second != due_ms) return false;
  armed_.erase(it);
  return true;
}

}  // namespace taskboard::engine
