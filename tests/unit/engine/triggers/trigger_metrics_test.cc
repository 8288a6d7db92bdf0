// The trigger metrics (docs/schedules.md#metrics): their series exist from
// the start, count what the hooks say, and pass the real promtool lint.

#include "scheduler/engine/triggers/trigger_metrics.h"

#include <string>

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

TEST(TriggerMetrics, Hooks_CountDeliveriesByOutcomeAndRateLimits) {
  metrics::Registry registry;
  TriggerMetrics trigger_metrics(registry);
  trigger_metrics.Delivered("accepted");
  trigger_metrics.Delivered("refused");
  trigger_metrics.Delivered("refused");
  trigger_metrics.RateLimited("trigger");
  trigger_metrics.SetTriggers(2);
  const std::string text = Exposition(registry);
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_deliveries_total{outcome=\"accepted\"} 1"));
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_deliveries_total{outcome=\"refused\"} 2"));
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_deliveries_total{outcome=\"deduped\"} 0"));
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_deliveries_total{outcome=\"filtered\"} 0"));
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_rate_limited_total{scope=\"trigger\"} 1"));
  EXPECT_THAT(text, HasSubstr("taskboard_trigger_rate_limited_total{scope=\"tenant\"} 0"));
  EXPECT_THAT(text, HasSubstr("taskboard_triggers 2"));
}

TEST(TriggerMetrics, Exposition_PassesPromtool) {
  metrics::Registry registry;
  TriggerMetrics trigger_metrics(registry);
  trigger_metrics.Delivered("deduped");
  trigger_metrics.RateLimited("tenant");
  testing::TempDir dir;
  std::optional<testing::Promtool> lint =
      testing::CheckMetrics(Exposition(registry), (dir.path() / "triggers.prom").string());
  if (!lint.has_value()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  EXPECT_EQ(lint->exit_code, 0) << lint->output;
  EXPECT_EQ(lint->output, "");
}

}  // namespace
}  // namespace taskboard::engine
