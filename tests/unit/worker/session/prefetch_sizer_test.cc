// PrefetchSizer: the queue a worker with --prefetch auto keeps ahead of its
// slots. Tasks shorter than the round trip to the scheduler grow it (in
// powers of two, up to the ceiling); long tasks keep it at the floor; it
// shrinks only when a quarter would do.

#include "worker/session/prefetch_sizer.h"

#include <string>

#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

// One task of `duration` whose result took `round_trip` to be acknowledged.
void Sample(PrefetchSizer& sizer, absl::Duration duration, absl::Duration round_trip,
            const std::string& lease = "lease") {
  sizer.TaskRan(duration);
  sizer.ResultSent(lease, kStart);
  sizer.ResultAcked(lease, kStart + round_trip);
}

TEST(PrefetchSizerTest, BeforeAnySample_StaysAtTheFloor) {
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  EXPECT_EQ(sizer.size(), 4);
  EXPECT_EQ(sizer.Update(), 4);
  sizer.TaskRan(absl::Microseconds(5));  // no round trip measured yet
  EXPECT_EQ(sizer.Update(), 4);
}

TEST(PrefetchSizerTest, MicrosecondTasks_MillisecondRoundTrip_GrowToTheCeiling) {
  // 4 slots * 1 ms / 10 us = 400 wanted; the ceiling is 64.
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  Sample(sizer, absl::Microseconds(10), absl::Milliseconds(1));
  EXPECT_EQ(sizer.Update(), 64);
}

TEST(PrefetchSizerTest, GrowsToThePowerOfTwoThatCoversTheRoundTrip) {
  // 4 slots * 1 ms / 200 us = 20 wanted: 4 -> 8 -> 16 -> 32.
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  Sample(sizer, absl::Microseconds(200), absl::Milliseconds(1));
  EXPECT_EQ(sizer.Update(), 32);
}

TEST(PrefetchSizerTest, TasksLongerThanTheRoundTrip_StayAtTheFloor) {
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  Sample(sizer, absl::Seconds(2), absl::Milliseconds(1));
  EXPECT_EQ(sizer.Update(), 4);
}

TEST(PrefetchSizerTest, Shrinks_OnlyWhenAQuarterWouldDo_AndByHalves) {
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  Sample(sizer, absl::Microseconds(10), absl::Milliseconds(1));
  ASSERT_EQ(sizer.Update(), 64);
  // Tasks get longer: the mean duration moves a tenth of the way per sample.
  // Until 4 * rtt / duration < 16 it keeps 64.
  int previous = 64;
  int steps = 0;
  for (int i = 0; i < 200; ++i) {
    Sample(sizer, absl::Milliseconds(10), absl::Milliseconds(1), "l" + std::to_string(i));
    const int size = sizer.Update();
    EXPECT_TRUE(size == previous || size == previous / 2 || size == 4)
        << previous << " -> " << size;
    if (size != previous) ++steps;
    previous = size;
  }
  EXPECT_EQ(previous, 4);
  EXPECT_GE(steps, 3);  // 64 -> 32 -> 16 -> 8 -> 4, one halving at a time
}

TEST(PrefetchSizerTest, NearTheLine_DoesNotFlap) {
  // Wanted 4 * 1 ms / 150 us ~= 27: 32. Samples around it (wanted 20 to 40)
  // never move it: growth needs more than 32, shrinking less than 8.
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  Sample(sizer, absl::Microseconds(150), absl::Milliseconds(1));
  ASSERT_EQ(sizer.Update(), 32);
  for (int i = 0; i < 50; ++i) {
    Sample(sizer, absl::Microseconds(i % 2 == 0 ? 130 : 190), absl::Milliseconds(1),
           "l" + std::to_string(i));
    EXPECT_EQ(sizer.Update(), 32);
  }
}

TEST(PrefetchSizerTest, FixedPrefetch_NeverMoves) {
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/2, /*ceiling=*/2);
  Sample(sizer, absl::Microseconds(1), absl::Seconds(1));
  EXPECT_EQ(sizer.Update(), 2);
}

TEST(PrefetchSizerTest, AckWithoutASend_AndResultsInFlightAcrossAReconnect_AreNotRoundTrips) {
  PrefetchSizer sizer(/*slots=*/4, /*floor=*/4, /*ceiling=*/64);
  sizer.TaskRan(absl::Microseconds(10));
  sizer.ResultAcked("never-sent", kStart);
  EXPECT_EQ(sizer.Update(), 4);
  sizer.ResultSent("before-reconnect", kStart);
  sizer.ForgetInFlight();
  sizer.ResultAcked("before-reconnect", kStart + absl::Seconds(5));
  EXPECT_EQ(sizer.Update(), 4);
}

}  // namespace
}  // namespace taskboard::worker
