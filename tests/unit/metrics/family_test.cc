#include "common/metrics/family.h"

#include <thread>
#include <vector>

#include "common/metrics/builder.h"
#include "common/metrics/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(Family, Add_SameLabels_ReturnsSameChild) {
  Registry registry;
  Family<Counter>& family =
      BuildCounter().Name("taskboard_tasks_total").Help("Tasks.").Register(registry);
  Counter& shell = family.Add({{"agent", "shell"}, {"outcome", "ok"}});
  Counter& again = family.Add({{"outcome", "ok"}, {"agent", "shell"}});
  Counter& other = family.Add({{"agent", "llm"}, {"outcome", "ok"}});
  EXPECT_EQ(&shell, &again);
  EXPECT_NE(&shell, &other);
}

TEST(Family, Collect_MergesConstantLabelsInLabelOrder) {
  Registry registry;
  Family<Gauge>& family = BuildGauge()
                              .Name("taskboard_ready_tasks")
                              .Help("Ready tasks.")
                              .Labels({{"service", "scheduler"}})
                              .Register(registry);
  family.Add({{"agent", "shell"}}).Set(3);
  family.Add({{"agent", "llm"}}).Set(1);

  const MetricFamily snapshot = family.Collect();
  EXPECT_EQ(snapshot.name, "taskboard_ready_tasks");
  EXPECT_EQ(snapshot.type, MetricType::kGauge);
  ASSERT_EQ(snapshot.metrics.size(), 2u);
  EXPECT_THAT(snapshot.metrics[0].labels,
              ElementsAre(Pair("agent", "llm"), Pair("service", "scheduler")));
  EXPECT_EQ(snapshot.metrics[0].value, 1);
  EXPECT_THAT(snapshot.metrics[1].labels,
              ElementsAre(Pair("agent", "shell"), Pair("service", "scheduler")));
  EXPECT_EQ(snapshot.metrics[1].value, 3);
}

TEST(Family, Add_HistogramWithBuckets_UsesThemForTheNewChild) {
  Registry registry;
  Family<Histogram>& family =
      BuildHistogram().Name("taskboard_tool_seconds").Help("Tool latency.").Register(registry);
  Histogram& custom = family.Add({{"tool", "grep"}}, BucketBoundaries{1, 2});
  Histogram& defaulted = family.Add({{"tool", "cat"}});
  EXPECT_THAT(custom.bounds(), ElementsAre(1, 2));
  EXPECT_EQ(defaulted.bounds(), DefaultLatencyBuckets());
}

TEST(Family, Add_ConcurrentSameLabels_OneChildCountsEverything) {
  Registry registry;
  Family<Counter>& family =
      BuildCounter().Name("taskboard_events_total").Help("Events.").Register(registry);
  constexpr int kThreads = 8;
  constexpr int kIncrementsPerThread = 10000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&family] {
      for (int i = 0; i < kIncrementsPerThread; ++i) family.Add({{"kind", "x"}}).Increment();
    });
  }
  for (std::thread& thread : threads) thread.join();
  const MetricFamily snapshot = family.Collect();
  ASSERT_EQ(snapshot.metrics.size(), 1u);
  EXPECT_EQ(snapshot.metrics[0].value, kThreads * kIncrementsPerThread);
}

TEST(Family, Add_InvalidLabelName_Aborts) {
  Registry registry;
  Family<Counter>& family =
      BuildCounter().Name("taskboard_runs_total").Help("Runs.").Register(registry);
  EXPECT_DEATH(family.Add({{"bad-name", "x"}}), "label name 'bad-name' is invalid");
  EXPECT_DEATH(family.Add({{"__reserved", "x"}}), "reserved for Prometheus");
}

TEST(Family, Add_LeOnHistogram_Aborts) {
  Registry registry;
  Family<Histogram>& family =
      BuildHistogram().Name("taskboard_x_seconds").Help("X.").Register(registry);
  EXPECT_DEATH(family.Add({{"le", "1"}}), "'le' is reserved in a histogram");
}

TEST(Family, Add_LabelThatIsConstant_Aborts) {
  Registry registry;
  Family<Gauge>& family = BuildGauge()
                              .Name("taskboard_slots")
                              .Help("Slots.")
                              .Labels({{"service", "worker"}})
                              .Register(registry);
  EXPECT_DEATH(family.Add({{"service", "other"}}), "already a constant label");
}

}  // namespace
}  // namespace taskboard::metrics
