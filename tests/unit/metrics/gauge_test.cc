#include "common/metrics/gauge.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

TEST(Gauge, SetIncrementDecrement_ChangeTheValue) {
  Gauge gauge;
  gauge.Set(10);
  gauge.Increment();
  gauge.Increment(4);
  gauge.Decrement();
  gauge.Decrement(20);
  EXPECT_EQ(gauge.Value(), -6);
  EXPECT_EQ(gauge.Collect().value, -6);
}

TEST(Gauge, IncrementAndDecrement_FromSeveralThreads_AddUpExactly) {
  Gauge gauge;
  constexpr int kThreads = 8;
  constexpr int kRounds = 50000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&gauge, t] {
      for (int i = 0; i < kRounds; ++i) {
        gauge.Increment(2);
        if (t % 2 == 0) gauge.Decrement();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Even threads net +1 per round, odd threads +2.
  EXPECT_EQ(gauge.Value(), (kThreads / 2) * kRounds * 3);
}

}  // namespace
}  // namespace taskboard::metrics
