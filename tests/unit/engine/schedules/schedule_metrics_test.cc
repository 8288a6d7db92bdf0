// The schedule metrics (docs/schedules.md#metrics): their series exist from
// the start, count what the hooks say, and pass the real promtool lint.

#include "scheduler/engine/schedules/schedule_metrics.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/promtool.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::engine {
namespace {

using ::testing::HasSubstr;

std::string Exposition(const metrics::Registry& registry) {
  return metrics::SerializeTextFormat(registry.Collect());
}

TEST(ScheduleMetrics, Hooks_CountFiresMissesSkipsAndLag) {
  metrics::Registry registry;
  ScheduleMetrics schedule_metrics(registry);
  schedule_metrics.Fired("", absl::Milliseconds(250));
  schedule_metrics.Fired("trigger", absl::ZeroDuration());
  schedule_metrics.Missed(8);
  schedule_metrics.OverlapSkipped();
  schedule_metrics.SetSchedules(3);
  const std::string text = Exposition(registry);
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_fires_total{manual=\"spec\"} 1"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_fires_total{manual=\"trigger\"} 1"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_fires_total{manual=\"backfill\"} 0"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_missed_total 8"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_overlaps_skipped_total 1"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_start_errors_total 0"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedule_fire_lag_seconds_count 2"));
  EXPECT_THAT(text, HasSubstr("taskboard_schedules 3"));
}

TEST(ScheduleMetrics, Exposition_PassesPromtool) {
  metrics::Registry registry;
  ScheduleMetrics schedule_metrics(registry);
  schedule_metrics.Fired("backfill", absl::Seconds(3));
  testing::TempDir dir;
  std::optional<testing::Promtool> lint =
      testing::CheckMetrics(Exposition(registry), (dir.path() / "schedules.prom").string());
  if (!lint.has_value()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  EXPECT_EQ(lint->exit_code, 0) << lint->output;
  EXPECT_EQ(lint->output, "");
}

}  // namespace
}  // namespace taskboard::engine
