// Interpolation's size limit (InterpolationContext::max_bytes): a template
// whose placeholders multiply a large value stops with RESOURCE_EXHAUSTED
// as soon as the text passes the limit.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/interpolation.h"

namespace taskboard::flow {
namespace {

using ::testing::HasSubstr;

InterpolationContext WithStep(std::string output, size_t max_bytes) {
  InterpolationContext ctx;
  StepValue step;
  step.output = std::move(output);
  ctx.steps.emplace("a", std::move(step));
  ctx.max_bytes = max_bytes;
  return ctx;
}

TEST(InterpolationLimit, RepeatedLargeValue_IsResourceExhaustedNamingTheLimit) {
  std::string tmpl;
  for (int i = 0; i < 100; ++i) absl::StrAppend(&tmpl, "{steps.a.output}\n");
  absl::StatusOr<std::string> text = Interpolate(tmpl, WithStep(std::string(1'000, 'x'), 1'000));
  EXPECT_TRUE(absl::IsResourceExhausted(text.status())) << text.status();
  EXPECT_THAT(std::string(text.status().message()),
              HasSubstr("is over 1000 bytes once interpolated"));
}

TEST(InterpolationLimit, LiteralTextOverTheLimit_IsResourceExhausted) {
  absl::StatusOr<std::string> text =
      Interpolate(std::string(2'000, 'y') + "{steps.a.output}", WithStep("z", 1'000));
  EXPECT_TRUE(absl::IsResourceExhausted(text.status())) << text.status();
}

TEST(InterpolationLimit, TextAtTheLimit_Interpolates) {
  absl::StatusOr<std::string> text =
      Interpolate("{steps.a.output}{steps.a.output}", WithStep(std::string(500, 'x'), 1'000));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->size(), 1'000u);
}

TEST(InterpolationLimit, ZeroMaxBytes_MeansNoLimit) {
  absl::StatusOr<std::string> text =
      Interpolate("{steps.a.output}{steps.a.output}", WithStep(std::string(5'000, 'x'), 0));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->size(), 10'000u);
}

}  // namespace
}  // namespace taskboard::flow
