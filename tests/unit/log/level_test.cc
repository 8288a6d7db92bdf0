#include "common/log/level.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::log {
namespace {

using ::testing::HasSubstr;

TEST(ParseLevel, EveryName_RoundTrips) {
  for (Level level : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError, Level::kFatal}) {
    absl::StatusOr<Level> parsed = ParseLevel(LevelName(level));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, level);
  }
}

TEST(ParseLevel, UpperCaseAndWarning_Accepted) {
  EXPECT_EQ(*ParseLevel("DEBUG"), Level::kDebug);
  EXPECT_EQ(*ParseLevel("Warning"), Level::kWarn);
}

TEST(ParseLevel, UnknownName_FailsNamingValueAndChoices) {
  absl::StatusOr<Level> parsed = ParseLevel("bogus");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("'bogus'"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("debug, info, warn, error, fatal"));
}

TEST(ParseLevel, Empty_Fails) { EXPECT_FALSE(ParseLevel("").ok()); }

}  // namespace
}  // namespace taskboard::log
