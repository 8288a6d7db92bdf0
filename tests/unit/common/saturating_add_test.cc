#include "common/saturating_add.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace taskboard {
namespace {

TEST(SaturatingAdd, InRange_IsTheSum) {
  EXPECT_EQ(SaturatingAdd(2, 3), 5);
  EXPECT_EQ(SaturatingAdd(-2, 3), 1);
  EXPECT_EQ(SaturatingAdd(INT64_MAX - 1, 1), INT64_MAX);
}

TEST(SaturatingAdd, PastTheTop_HoldsAtInt64Max) {
  EXPECT_EQ(SaturatingAdd(INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(SaturatingAdd(INT64_MAX, INT64_MAX), INT64_MAX);
  EXPECT_EQ(SaturatingAdd(INT64_MAX / 2 + 1, INT64_MAX / 2 + 1), INT64_MAX);
}

TEST(SaturatingAdd, PastTheBottom_HoldsAtInt64Min) {
  EXPECT_EQ(SaturatingAdd(INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(SaturatingAdd(INT64_MIN, INT64_MIN), INT64_MIN);
}

}  // namespace
}  // namespace taskboard
