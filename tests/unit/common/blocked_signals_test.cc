// common/blocked_signals.h: a blocked signal waits, pending, until Wait or
// WaitFor takes it. SIGUSR1 and SIGUSR2 stand in for SIGTERM and SIGHUP;
// each test restores the thread's signal mask.

#include "common/blocked_signals.h"

#include <pthread.h>
#include <signal.h>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace taskboard {
namespace {

class BlockedSignalsTest : public ::testing::Test {
 protected:
  BlockedSignalsTest() { pthread_sigmask(SIG_BLOCK, nullptr, &saved_mask_); }
  ~BlockedSignalsTest() override { pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr); }

 private:
  sigset_t saved_mask_;
};

TEST_F(BlockedSignalsTest, SignalSentBeforeWait_IsTakenByWait) {
  BlockedSignals signals({SIGUSR1, SIGUSR2});
  ASSERT_EQ(pthread_kill(pthread_self(), SIGUSR2), 0);  // blocked: stays pending
  EXPECT_EQ(signals.Wait(), SIGUSR2);
}

TEST_F(BlockedSignalsTest, SignalsAreTakenOneAtATime) {
  BlockedSignals signals({SIGUSR1, SIGUSR2});
  ASSERT_EQ(pthread_kill(pthread_self(), SIGUSR1), 0);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGUSR2), 0);
  const int first = signals.WaitFor(absl::Seconds(5));
  const int second = signals.WaitFor(absl::Seconds(5));
  EXPECT_EQ(first + second, SIGUSR1 + SIGUSR2);
  EXPECT_NE(first, second);
  EXPECT_EQ(signals.WaitFor(absl::Milliseconds(1)), 0);
}

TEST_F(BlockedSignalsTest, NothingSent_WaitForTimesOutWithZero) {
  BlockedSignals signals({SIGUSR1});
  const absl::Time start = absl::Now();
  EXPECT_EQ(signals.WaitFor(absl::Milliseconds(50)), 0);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(40));
}

TEST_F(BlockedSignalsTest, SignalOutsideTheSet_IsNotTaken) {
  BlockedSignals signals({SIGUSR1});
  sigset_t other;
  sigemptyset(&other);
  sigaddset(&other, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &other, nullptr);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGUSR2), 0);
  EXPECT_EQ(signals.WaitFor(absl::Milliseconds(20)), 0);
  int taken = 0;
  ASSERT_EQ(sigwait(&other, &taken), 0);  // leave nothing pending for the next test
  EXPECT_EQ(taken, SIGUSR2);
}

}  // namespace
}  // namespace taskboard
