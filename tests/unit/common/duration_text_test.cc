#include "common/duration_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::StatusIs;
using ::testing::HasSubstr;

TEST(DurationText, DaysAndAbseilUnits) {
  EXPECT_EQ(*ParseDurationText("30d"), absl::Hours(24 * 30));
  EXPECT_EQ(*ParseDurationText("12h"), absl::Hours(12));
  EXPECT_EQ(*ParseDurationText("1h30m"), absl::Minutes(90));
  EXPECT_EQ(*ParseDurationText("2s"), absl::Seconds(2));
  EXPECT_EQ(*ParseDurationText("0"), absl::ZeroDuration());
}

TEST(DurationText, AnythingElse_SaysWhatIsAccepted) {
  for (const char* text : {"", "30", "thirty days", "-1h", "1.5d", "d", "inf"}) {
    EXPECT_THAT(ParseDurationText(text),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("is not a duration: write a number with a unit")))
        << text;
  }
}

}  // namespace
}  // namespace taskboard
