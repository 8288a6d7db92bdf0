#include "scheduler/engine/workers/scheduling_deadlines.h"

#include "gtest/gtest.h"

namespace taskboard::engine {
namespace {

constexpr int64_t kTimeout = 60'000;
constexpr int64_t kStart = 1'000'000;

TEST(SchedulingDeadlines, TaskReadyAfterTheStart_CountsFromItsReadyTime) {
  SchedulingDeadlines deadlines(kTimeout, kStart);
  EXPECT_EQ(deadlines.DeadlineOf("coder", kStart + 5), kStart + 5 + kTimeout);
  EXPECT_FALSE(deadlines.ExpiredUpTo("coder", kStart + kTimeout - 1).has_value());
  EXPECT_EQ(deadlines.ExpiredUpTo("coder", kStart + kTimeout + 7), kStart + 7);
}

TEST(SchedulingDeadlines, TaskReadyBeforeARestart_GetsTheWholeTimeoutFromTheStart) {
  SchedulingDeadlines deadlines(kTimeout, kStart);
  EXPECT_EQ(deadlines.DeadlineOf("coder", kStart - 50'000), kStart + kTimeout);
}

TEST(SchedulingDeadlines, LastWorkerLeaves_CountsFromTheLeave_UntilOfferedAgain) {
  SchedulingDeadlines deadlines(kTimeout, kStart);
  deadlines.AgentLost("coder", kStart + 100);
  EXPECT_EQ(deadlines.DeadlineOf("coder", kStart + 10), kStart + 100 + kTimeout);
  EXPECT_EQ(deadlines.DeadlineOf("writer", kStart + 10), kStart + 10 + kTimeout);
  EXPECT_FALSE(deadlines.ExpiredUpTo("coder", kStart + 99 + kTimeout).has_value());
  deadlines.AgentOffered("coder");
  EXPECT_EQ(deadlines.DeadlineOf("coder", kStart + 10), kStart + 10 + kTimeout);
}

TEST(SchedulingDeadlines, Arm_OnlyAnEarlierCheckNeedsATimer) {
  SchedulingDeadlines deadlines(kTimeout, kStart);
  EXPECT_TRUE(deadlines.Arm("coder", 500));
  EXPECT_FALSE(deadlines.Arm("coder", 500));
  EXPECT_FALSE(deadlines.Arm("coder", 700));
  EXPECT_TRUE(deadlines.Arm("coder", 400));
  EXPECT_TRUE(deadlines.Arm("writer", 900));
  EXPECT_EQ(deadlines.armed(), 2u);
  EXPECT_FALSE(deadlines.Fired("coder", 500)) << "superseded by the check at 400";
  EXPECT_TRUE(deadlines.Fired("coder", 400));
  EXPECT_FALSE(deadlines.Fired("coder", 400));
  EXPECT_TRUE(deadlines.Arm("coder", 700));
}

}  // namespace
}  // namespace taskboard::engine
