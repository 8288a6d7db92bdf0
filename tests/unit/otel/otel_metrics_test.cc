// The export counters as Prometheus series: every series present from the
// start, each hook adding to its own.

#include "common/otel/otel_metrics.h"

#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/prometheus_text.h"

namespace taskboard::otel {
namespace {

using ::taskboard::testing::SampleValue;
using ::testing::Optional;

class OtelExportMetricsTest : public ::testing::Test {
 protected:
  std::optional<double> Sample(const std::string& series) {
    return SampleValue(metrics::SerializeTextFormat(registry_.Collect()), series);
  }

  metrics::Registry registry_;
  OtelExportMetrics metrics_{registry_};
};

TEST_F(OtelExportMetricsTest, EverySeries_StartsAtZero) {
  EXPECT_THAT(Sample("taskboard_otel_spans_exported_total"), Optional(0.0));
  for (const char* reason : {"queue_full", "export_failed", "rejected", "shutdown"}) {
    EXPECT_THAT(
        Sample(std::string("taskboard_otel_spans_dropped_total{reason=\"") + reason + "\"}"),
        Optional(0.0))
        << reason;
  }
  for (const char* outcome : {"exported", "retryable", "refused", "cancelled"}) {
    EXPECT_THAT(
        Sample(std::string("taskboard_otel_export_attempts_total{outcome=\"") + outcome + "\"}"),
        Optional(0.0))
        << outcome;
  }
}

TEST_F(OtelExportMetricsTest, Hooks_AddToTheirSeries) {
  metrics_.SpansExported(512);
  metrics_.SpansDropped(DropReason::kQueueFull, 3);
  metrics_.SpansDropped(DropReason::kQueueFull, 1);
  metrics_.SpansDropped(DropReason::kRejected, 2);
  metrics_.ExportAttempt(AttemptOutcome::kRetryable);
  EXPECT_THAT(Sample("taskboard_otel_spans_exported_total"), Optional(512.0));
  EXPECT_THAT(Sample("taskboard_otel_spans_dropped_total{reason=\"queue_full\"}"), Optional(4.0));
  EXPECT_THAT(Sample("taskboard_otel_spans_dropped_total{reason=\"rejected\"}"), Optional(2.0));
  EXPECT_THAT(Sample("taskboard_otel_export_attempts_total{outcome=\"retryable\"}"), Optional(1.0));
}

}  // namespace
}  // namespace taskboard::otel
