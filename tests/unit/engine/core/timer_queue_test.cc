#include "scheduler/engine/core/timer_queue.h"

#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace taskboard::engine {
namespace {

std::vector<std::string> PopAllDue(TimerQueue& timers, int64_t now_ms) {
  std::vector<std::string> fired;
  while (std::optional<Timer> timer = timers.PopDue(now_ms)) fired.push_back(timer->task_id);
  return fired;
}

TEST(TimerQueue, PopDue_EarliestFirst_OnlyThoseDue) {
  TimerQueue timers;
  timers.Add({300, TimerKind::kRetry, "r", "late", ""});
  timers.Add({100, TimerKind::kTaskTimeout, "r", "early", "lease"});
  timers.Add({200, TimerKind::kApprovalTimeout, "r", "middle", ""});

  EXPECT_EQ(PopAllDue(timers, 99), std::vector<std::string>{});
  EXPECT_EQ(PopAllDue(timers, 200), (std::vector<std::string>{"early", "middle"}));
  EXPECT_EQ(timers.NextDueMs(), 300);
  EXPECT_EQ(PopAllDue(timers, 1000), std::vector<std::string>{"late"});
  EXPECT_EQ(timers.NextDueMs(), std::nullopt);
}

TEST(TimerQueue, EqualDueTimers_FireInTheOrderOfTheHeapTheEngineAlwaysUsed) {
  // The engine's timers were a std::priority_queue with std::greater; equal
  // due times of different kinds still fire in that heap's order.
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> reference;
  TimerQueue timers;
  for (int i = 0; i < 20; ++i) {
    Timer timer{100 + (i % 3), static_cast<TimerKind>(i % 4), "r", std::to_string(i), ""};
    reference.push(timer);
    timers.Add(timer);
  }
  std::vector<std::string> expected;
  while (!reference.empty()) {
    expected.push_back(reference.top().task_id);
    reference.pop();
  }
  EXPECT_EQ(PopAllDue(timers, 200), expected);
}

}  // namespace
}  // namespace taskboard::engine
