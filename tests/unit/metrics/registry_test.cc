#include "common/metrics/registry.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/metrics/builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

using ::testing::ElementsAre;

MATCHER_P2(StatusIs, code, message_part, "") {
  return arg.code() == code && absl::StrContains(arg.message(), message_part);
}

TEST(Registry, Collect_ReturnsFamiliesInRegistrationOrder) {
  Registry registry;
  BuildGauge().Name("taskboard_b").Help("B.").Register(registry).Add({}).Set(1);
  BuildCounter().Name("taskboard_a_total").Help("A.").Register(registry).Add({}).Increment();
  std::vector<std::string> names;
  for (const MetricFamily& family : registry.Collect()) names.push_back(family.name);
  EXPECT_THAT(names, ElementsAre("taskboard_b", "taskboard_a_total"));
}

TEST(Registry, TryRegister_InvalidMetricName_IsInvalidArgument) {
  Registry registry;
  for (const char* name : {"", "1abc", "has-dash", "has space", "émoji"}) {
    EXPECT_THAT(BuildGauge().Name(name).Help("X.").TryRegister(registry).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, "must match [a-zA-Z_:]"))
        << name;
  }
  EXPECT_TRUE(BuildGauge().Name("ns:sub_name9").Help("X.").TryRegister(registry).ok());
}

TEST(Registry, TryRegister_InvalidConstantLabel_IsInvalidArgument) {
  Registry registry;
  EXPECT_THAT(BuildGauge()
                  .Name("taskboard_x")
                  .Help("X.")
                  .Labels({{"a:b", "v"}})
                  .TryRegister(registry)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "label name 'a:b' is invalid"));
  EXPECT_THAT(BuildHistogram()
                  .Name("taskboard_y_seconds")
                  .Help("Y.")
                  .Labels({{"le", "1"}})
                  .TryRegister(registry)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "'le' is reserved"));
}

TEST(Registry, TryRegister_CounterWithoutTotal_IsInvalidArgument) {
  Registry registry;
  EXPECT_THAT(BuildCounter().Name("taskboard_runs").Help("Runs.").TryRegister(registry).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "must end in '_total'"));
  EXPECT_THAT(
      BuildGauge().Name("taskboard_runs_total").Help("Runs.").TryRegister(registry).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "reserves for counters"));
}

TEST(Registry, TryRegister_EmptyHelp_IsInvalidArgument) {
  Registry registry;
  EXPECT_THAT(BuildGauge().Name("taskboard_x").TryRegister(registry).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "has no help text"));
}

TEST(Registry, TryRegister_SameName_IsAlreadyExists) {
  Registry registry;
  BuildGauge().Name("taskboard_x").Help("X.").Register(registry);
  EXPECT_THAT(BuildGauge().Name("taskboard_x").Help("X.").TryRegister(registry).status(),
              StatusIs(absl::StatusCode::kAlreadyExists, "already registered"));
}

TEST(Registry, TryRegister_NameAHistogramSampleUses_IsAlreadyExists) {
  Registry registry;
  BuildHistogram().Name("taskboard_latency_seconds").Help("L.").Register(registry);
  EXPECT_THAT(BuildGauge()
                  .Name("taskboard_latency_seconds_count")
                  .Help("C.")
                  .TryRegister(registry)
                  .status(),
              StatusIs(absl::StatusCode::kAlreadyExists, "'taskboard_latency_seconds_count'"));
}

TEST(Registry, Register_InvalidName_AbortsWithTheReason) {
  Registry registry;
  EXPECT_DEATH(BuildCounter().Name("bad name_total").Help("X.").Register(registry),
               "taskboard metrics: metric name 'bad name_total' is invalid");
}

}  // namespace
}  // namespace taskboard::metrics
