#include "common/metrics/histogram.h"

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::FieldsAre;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Histogram, Observe_CountsCumulativelyWithInfLast) {
  Histogram histogram({1, 2, 5});
  histogram.Observe(0.5);
  histogram.Observe(1);  // On a bound: counts in that bucket (le = "less or equal").
  histogram.Observe(1.5);
  histogram.Observe(7);

  const ClientMetric metric = histogram.Collect();
  EXPECT_THAT(metric.buckets,
              ElementsAre(FieldsAre(1, 2), FieldsAre(2, 3), FieldsAre(5, 3), FieldsAre(kInf, 4)));
  EXPECT_EQ(metric.count, 4u);
  EXPECT_EQ(metric.sum, 10);
}

TEST(Histogram, Observe_Nan_LandsInInfBucket) {
  Histogram histogram({1});
  histogram.Observe(std::nan(""));
  const ClientMetric metric = histogram.Collect();
  EXPECT_THAT(metric.buckets, ElementsAre(FieldsAre(1, 0), FieldsAre(kInf, 1)));
  EXPECT_TRUE(std::isnan(metric.sum));
}

TEST(Histogram, Construct_TrailingInf_IsDropped) {
  Histogram histogram({0.1, kInf});
  EXPECT_THAT(histogram.bounds(), ElementsAre(0.1));
}

TEST(Histogram, Construct_DefaultBuckets_AreTheLatencyBuckets) {
  Histogram histogram;
  EXPECT_EQ(histogram.bounds(), DefaultLatencyBuckets());
  EXPECT_EQ(DefaultLatencyBuckets().front(), 0.001);
  EXPECT_EQ(DefaultLatencyBuckets().back(), 300);
}

TEST(Histogram, Construct_UnsortedBounds_Aborts) {
  EXPECT_DEATH(Histogram({1, 1}), "strictly ascending");
  EXPECT_DEATH(Histogram({std::nan("")}), "finite");
}

TEST(Histogram, ExponentialBuckets_MultipliesByFactor) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 4), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(ExponentialBuckets(0.5, 10, 1), ElementsAre(0.5));
}

TEST(Histogram, ExponentialBuckets_BadArguments_Abort) {
  EXPECT_DEATH(ExponentialBuckets(0, 2, 3), "start > 0, factor > 1 and count >= 1");
  EXPECT_DEATH(ExponentialBuckets(1, 1, 3), "start > 0, factor > 1 and count >= 1");
  EXPECT_DEATH(ExponentialBuckets(1, 2, 0), "start > 0, factor > 1 and count >= 1");
}

TEST(Histogram, Observe_FromSeveralThreads_AddsUpExactly) {
  Histogram histogram({1, 10});
  constexpr int kThreads = 8;
  constexpr int kObservationsPerThread = 20000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&histogram] {
      for (int i = 0; i < kObservationsPerThread; ++i) histogram.Observe(i % 2 == 0 ? 0.5 : 5);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const ClientMetric metric = histogram.Collect();
  constexpr uint64_t kTotal = uint64_t{kThreads} * kObservationsPerThread;
  constexpr uint64_t kSmall = kTotal / 2;  // Every other observation is 0.5, the rest 5.
  EXPECT_THAT(metric.buckets,
              ElementsAre(FieldsAre(1, kSmall), FieldsAre(10, kTotal), FieldsAre(kInf, kTotal)));
  EXPECT_EQ(metric.count, kTotal);
  EXPECT_EQ(metric.sum, static_cast<double>(kSmall) * 0.5 + static_cast<double>(kSmall) * 5.0);
}

}  // namespace
}  // namespace taskboard::metrics
