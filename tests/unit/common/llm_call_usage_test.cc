#include "common/llm_call_usage.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace taskboard {
namespace {

TEST(LlmCallUsage, Tokens_NegativeIsZeroAbsurdIsTheCap) {
  EXPECT_EQ(CallTokens(-1'000'000'000), 0);
  EXPECT_EQ(CallTokens(INT64_MIN), 0);
  EXPECT_EQ(CallTokens(1234), 1234);
  EXPECT_EQ(CallTokens(INT64_MAX), kMaxCallTokens);
}

TEST(LlmCallUsage, CachedTokens_BetweenZeroAndTheInput) {
  EXPECT_EQ(CallCachedTokens(-5, 100), 0);
  EXPECT_EQ(CallCachedTokens(64, 100), 64);
  EXPECT_EQ(CallCachedTokens(1'000, 100), 100);
  EXPECT_EQ(CallCachedTokens(10, 0), 0);
}

TEST(LlmCallUsage, Cost_NegativeOrNotFiniteIsZeroAbsurdIsTheCap) {
  EXPECT_EQ(CallCostUsd(-2'000), 0);
  EXPECT_EQ(CallCostUsd(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(CallCostUsd(std::numeric_limits<double>::infinity()), 0);
  EXPECT_DOUBLE_EQ(CallCostUsd(0.25), 0.25);
  EXPECT_EQ(CallCostUsd(1e12), kMaxCallUsd);
}

}  // namespace
}  // namespace taskboard
