#include "scheduler/triggers/delivery_rates.h"

#include "gtest/gtest.h"

namespace taskboard::triggers {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(DeliveryRatesTest, Take_BurstThenOnePerInterval) {
  DeliveryRates rates;
  // 60 per minute, 3 at once: three now, the fourth a second later.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rates.Take("t", 60, 3, kStart), absl::ZeroDuration());
  const absl::Duration wait = rates.Take("t", 60, 3, kStart);
  EXPECT_GT(wait, absl::ZeroDuration());
  EXPECT_LE(wait, absl::Seconds(1));
  EXPECT_EQ(rates.Take("t", 60, 3, kStart + wait), absl::ZeroDuration());
  EXPECT_GT(rates.Take("t", 60, 3, kStart + wait), absl::ZeroDuration());
}

TEST(DeliveryRatesTest, Take_KeysAreIndependent) {
  DeliveryRates rates;
  EXPECT_EQ(rates.Take("a", 1, 1, kStart), absl::ZeroDuration());
  EXPECT_EQ(rates.Take("a", 1, 1, kStart), absl::Seconds(60));
  EXPECT_EQ(rates.Take("b", 1, 1, kStart), absl::ZeroDuration());
  rates.Forget("a");
  EXPECT_EQ(rates.Take("a", 1, 1, kStart), absl::ZeroDuration());
}

}  // namespace
}  // namespace taskboard::triggers
