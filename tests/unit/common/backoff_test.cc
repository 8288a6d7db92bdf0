#include "common/backoff.h"

#include <random>

#include "gtest/gtest.h"

namespace taskboard {
namespace {

TEST(Backoff, Ceiling_DoublesFromBaseUpToTheCap) {
  Backoff backoff({.base = absl::Milliseconds(100), .cap = absl::Seconds(5)});
  EXPECT_EQ(backoff.Ceiling(0), absl::Milliseconds(100));
  EXPECT_EQ(backoff.Ceiling(1), absl::Milliseconds(200));
  EXPECT_EQ(backoff.Ceiling(5), absl::Milliseconds(3200));
  EXPECT_EQ(backoff.Ceiling(6), absl::Seconds(5));
  EXPECT_EQ(backoff.Ceiling(1000), absl::Seconds(5));
}

TEST(Backoff, Next_IsFullJitterBelowTheCeiling) {
  Backoff backoff({.base = absl::Milliseconds(100), .cap = absl::Seconds(5)});
  std::mt19937_64 random(42);
  absl::Duration longest = absl::ZeroDuration();
  for (int attempt = 0; attempt < 200; ++attempt) {
    const absl::Duration ceiling = backoff.Ceiling(backoff.failures());
    const absl::Duration delay = backoff.Next(random);
    EXPECT_GE(delay, absl::ZeroDuration());
    EXPECT_LE(delay, ceiling);
    longest = std::max(longest, delay);
  }
  EXPECT_EQ(backoff.failures(), 200);
  EXPECT_GT(longest, absl::Seconds(2));  // the draws spread over the range
}

TEST(Backoff, Reset_StartsFromBaseAgain) {
  Backoff backoff({.base = absl::Milliseconds(100), .cap = absl::Seconds(5)});
  std::mt19937_64 random(7);
  for (int i = 0; i < 10; ++i) backoff.Next(random);
  backoff.Reset();
  EXPECT_EQ(backoff.failures(), 0);
  EXPECT_LE(backoff.Next(random), absl::Milliseconds(100));
}

}  // namespace
}  // namespace taskboard
