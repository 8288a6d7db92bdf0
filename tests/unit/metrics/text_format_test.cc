#include "common/metrics/text_format.h"

#include <cmath>
#include <limits>

#include "common/metrics/builder.h"
#include "common/metrics/registry.h"
#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

TEST(TextFormat, Serialize_SmallRegistry_IsExact) {
  Registry registry;
  BuildCounter()
      .Name("taskboard_requests_total")
      .Help("Requests served.\nBy path \\ method.")
      .Register(registry)
      .Add({{"path", "/a\"b\\c\nd"}})
      .Increment(3);
  Family<Gauge>& depth = BuildGauge()
                             .Name("taskboard_queue_depth")
                             .Help("Ready \"tasks\".")
                             .Labels({{"service", "scheduler"}})
                             .Register(registry);
  depth.Add({{"agent", "shell"}}).Set(0);
  depth.Add({{"agent", "llm"}}).Set(2.5);
  BuildGauge().Name("taskboard_unused").Help("No children yet.").Register(registry);
  Histogram& seconds = BuildHistogram()
                           .Name("taskboard_task_seconds")
                           .Help("Task duration.")
                           .Register(registry)
                           .Add({{"kind", "x"}}, BucketBoundaries{0.25, 1});
  seconds.Observe(0.25);
  seconds.Observe(0.5);
  seconds.Observe(3);

  EXPECT_EQ(SerializeTextFormat(registry.Collect()),
            R"txt(# HELP taskboard_requests_total Requests served.\nBy path \\ method.
# TYPE taskboard_requests_total counter
taskboard_requests_total{path="/a\"b\\c\nd"} 3
# HELP taskboard_queue_depth Ready "tasks".
# TYPE taskboard_queue_depth gauge
taskboard_queue_depth{agent="llm",service="scheduler"} 2.5
taskboard_queue_depth{agent="shell",service="scheduler"} 0
# HELP taskboard_task_seconds Task duration.
# TYPE taskboard_task_seconds histogram
taskboard_task_seconds_bucket{kind="x",le="0.25"} 1
taskboard_task_seconds_bucket{kind="x",le="1"} 2
taskboard_task_seconds_bucket{kind="x",le="+Inf"} 3
taskboard_task_seconds_sum{kind="x"} 3.75
taskboard_task_seconds_count{kind="x"} 3
)txt");
}

TEST(TextFormat, Serialize_NoLabels_WritesBareNames) {
  Registry registry;
  BuildGauge().Name("taskboard_up").Help("1 when up.").Register(registry).Add({}).Set(1);
  BuildHistogram()
      .Name("taskboard_wait_seconds")
      .Help("Wait.")
      .Register(registry)
      .Add({}, BucketBoundaries{1})
      .Observe(2);
  EXPECT_EQ(SerializeTextFormat(registry.Collect()), R"txt(# HELP taskboard_up 1 when up.
# TYPE taskboard_up gauge
taskboard_up 1
# HELP taskboard_wait_seconds Wait.
# TYPE taskboard_wait_seconds histogram
taskboard_wait_seconds_bucket{le="1"} 0
taskboard_wait_seconds_bucket{le="+Inf"} 1
taskboard_wait_seconds_sum 2
taskboard_wait_seconds_count 1
)txt");
}

TEST(TextFormat, FormatValue_ShortestRoundTripAndSpecials) {
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-0.5), "-0.5");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(0.0025), "0.0025");
  EXPECT_EQ(FormatValue(1e-05), "1e-05");
  EXPECT_EQ(FormatValue(123456789), "123456789");
  EXPECT_EQ(FormatValue(1e21), "1e+21");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
}

TEST(TextFormat, Escape_HelpKeepsQuotesLabelValuesEscapeThem) {
  EXPECT_EQ(EscapeHelp("a\\b\n\"c\""), "a\\\\b\\n\"c\"");
  EXPECT_EQ(EscapeLabelValue("a\\b\n\"c\""), "a\\\\b\\n\\\"c\\\"");
  EXPECT_EQ(EscapeLabelValue("plain ünïcode"), "plain ünïcode");
}

}  // namespace
}  // namespace taskboard::metrics
