#include "common/rate_bucket.h"

#include "gtest/gtest.h"

namespace taskboard {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

// Takes calls of `cost` at `now` while they fit; returns how many did.
int TakeWhileFits(RateBucket& bucket, absl::Time now, double cost) {
  int taken = 0;
  while (bucket.WaitFor(now) == absl::ZeroDuration() && taken < 100'000) {
    bucket.Take(now, cost);
    ++taken;
  }
  return taken;
}

TEST(RateBucket, AFullBucketHoldsOneSecondOfTheLimit) {
  RateBucket bucket(600);  // 10 per second
  // One second's worth, plus the call that empties it to the edge.
  EXPECT_EQ(TakeWhileFits(bucket, kStart, 1), 11);
  EXPECT_EQ(bucket.WaitFor(kStart), absl::Milliseconds(100));
}

TEST(RateBucket, RefillsAtTheLimitOverAMinute) {
  RateBucket bucket(600);
  int taken = TakeWhileFits(bucket, kStart, 1);
  for (int ms = 1; ms <= 60'000; ++ms) {
    taken += TakeWhileFits(bucket, kStart + absl::Milliseconds(ms), 1);
  }
  // 600 per minute, plus the initial burst.
  EXPECT_EQ(taken, 611);
}

TEST(RateBucket, ABiggerCallThanTheBucketFitsWhenFullAndOwesTheRest) {
  RateBucket bucket(60'000);  // tokens: 1,000 per second
  EXPECT_EQ(bucket.WaitFor(kStart), absl::ZeroDuration());
  bucket.Take(kStart, 5'000);
  // It owes four seconds beyond the one-second bucket.
  EXPECT_EQ(bucket.WaitFor(kStart), absl::Seconds(4));
}

TEST(RateBucket, AdjustChargesOrRefundsWhatTheEstimateMissed) {
  RateBucket bucket(60'000);
  bucket.Take(kStart, 3'000);
  EXPECT_EQ(bucket.WaitFor(kStart), absl::Seconds(2));
  bucket.Adjust(kStart, -2'500);  // the call used 500 tokens
  EXPECT_EQ(bucket.WaitFor(kStart), absl::ZeroDuration());
  bucket.Adjust(kStart, 1'500);  // no: 2,000
  EXPECT_EQ(bucket.WaitFor(kStart), absl::Seconds(1));
  // A refund never fills the bucket beyond full.
  bucket.Adjust(kStart, -1'000'000);
  EXPECT_EQ(TakeWhileFits(bucket, kStart, 100), 11);
}

TEST(RateBucket, ALowerRateSpacesTheNextCallsFurther) {
  RateBucket bucket(600, absl::ZeroDuration());
  bucket.Take(kStart, 1);
  EXPECT_EQ(bucket.WaitFor(kStart), absl::Milliseconds(100));
  bucket.SetRate(60);
  bucket.Take(kStart + absl::Milliseconds(100), 1);
  EXPECT_EQ(bucket.WaitFor(kStart + absl::Milliseconds(100)), absl::Seconds(1));
}

}  // namespace
}  // namespace taskboard
