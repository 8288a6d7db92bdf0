#include "common/metrics/counter.h"

#include <cmath>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

TEST(Counter, Increment_DefaultAndAmount_Adds) {
  Counter counter;
  counter.Increment();
  counter.Increment(2.5);
  EXPECT_EQ(counter.Value(), 3.5);
  EXPECT_EQ(counter.Collect().value, 3.5);
}

TEST(Counter, Increment_NegativeOrNan_IsIgnored) {
  Counter counter;
  counter.Increment(4);
  counter.Increment(-1);
  counter.Increment(std::nan(""));
  EXPECT_EQ(counter.Value(), 4);
}

TEST(Counter, Increment_FromSeveralThreads_AddsUpExactly) {
  Counter counter;
  constexpr int kThreads = 8;
  constexpr int kIncrementsPerThread = 100000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < kIncrementsPerThread; ++i) counter.Increment();
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.Value(), kThreads * kIncrementsPerThread);
}

}  // namespace
}  // namespace taskboard::metrics
