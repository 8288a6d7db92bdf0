#include "scheduler/schedules/cron_expression.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::schedules {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

CronExpression MustParse(const std::string& text) {
  absl::StatusOr<CronExpression> cron = CronExpression::Parse(text);
  EXPECT_THAT(cron, IsOk()) << text;
  return *std::move(cron);
}

// The next `n` matches after `from`, as "YYYY-MM-DDTHH:MM" strings.
std::vector<std::string> Next(const CronExpression& cron, absl::CivilSecond from, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::optional<absl::CivilMinute> match = cron.NextMatch(from, absl::CivilSecond::max());
    if (!match) break;
    out.push_back(absl::FormatCivilTime(*match));
    from = absl::CivilSecond(*match);
  }
  return out;
}

TEST(CronExpression, EveryFifteenMinutes_MatchesQuarterHours) {
  EXPECT_THAT(Next(MustParse("*/15 * * * *"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 3),
              ::testing::ElementsAre("2026-01-01T10:15", "2026-01-01T10:30", "2026-01-01T10:45"));
}

TEST(CronExpression, NextMatch_IsStrictlyAfter) {
  EXPECT_THAT(Next(MustParse("0 2 * * *"), absl::CivilSecond(2026, 1, 1, 2, 0, 0), 1),
              ::testing::ElementsAre("2026-01-02T02:00"));
  EXPECT_THAT(Next(MustParse("0 2 * * *"), absl::CivilSecond(2026, 1, 1, 1, 59, 59), 1),
              ::testing::ElementsAre("2026-01-01T02:00"));
}

TEST(CronExpression, ListsRangesStepsAndNames) {
  // Weekdays at 09:30 and 17:00 in the first quarter.
  const CronExpression cron = MustParse("30,0 9,17 * JAN-mar mon-FRI");
  EXPECT_TRUE(cron.Matches(absl::CivilMinute(2026, 1, 5, 9, 30)));   // Monday
  EXPECT_TRUE(cron.Matches(absl::CivilMinute(2026, 3, 6, 17, 0)));   // Friday
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 1, 4, 9, 30)));  // Sunday
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 4, 6, 9, 30)));  // April
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 1, 5, 9, 15)));
  // a-b/n and a/n.
  EXPECT_THAT(Next(MustParse("10-30/10 0 1 1 *"), absl::CivilSecond(2026, 1, 1, 0, 0, 0), 4),
              ::testing::ElementsAre("2026-01-01T00:10", "2026-01-01T00:20", "2026-01-01T00:30",
                                     "2027-01-01T00:10"));
  EXPECT_THAT(Next(MustParse("50/5 0 1 1 *"), absl::CivilSecond(2026, 1, 1, 0, 0, 0), 3),
              ::testing::ElementsAre("2026-01-01T00:50", "2026-01-01T00:55", "2027-01-01T00:50"));
}

TEST(CronExpression, SevenIsSunday) {
  EXPECT_TRUE(MustParse("0 0 * * 7").Matches(absl::CivilMinute(2026, 1, 4, 0, 0)));
  EXPECT_TRUE(MustParse("0 0 * * 5-7").Matches(absl::CivilMinute(2026, 1, 4, 0, 0)));
}

TEST(CronExpression, DayOfMonthAndDayOfWeekBothRestricted_EitherMatches) {
  // Vixie: the 13th OR any Friday.
  const CronExpression cron = MustParse("0 0 13 * FRI");
  EXPECT_TRUE(cron.Matches(absl::CivilMinute(2026, 1, 13, 0, 0)));  // a Tuesday
  EXPECT_TRUE(cron.Matches(absl::CivilMinute(2026, 1, 2, 0, 0)));   // a Friday
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 1, 3, 0, 0)));
}

TEST(CronExpression, StarredDayOfWeek_BothMustMatch) {
  // `*/2` starts with `*`, so it does not count as restricted: AND.
  const CronExpression cron = MustParse("0 0 1-7 * */2");
  EXPECT_TRUE(cron.Matches(absl::CivilMinute(2026, 1, 4, 0, 0)));    // Sunday the 4th
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 1, 5, 0, 0)));   // Monday the 5th
  EXPECT_FALSE(cron.Matches(absl::CivilMinute(2026, 1, 11, 0, 0)));  // Sunday the 11th
}

TEST(CronExpression, Macros) {
  EXPECT_THAT(Next(MustParse("@hourly"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 1),
              ::testing::ElementsAre("2026-01-01T11:00"));
  EXPECT_THAT(Next(MustParse("@daily"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 1),
              ::testing::ElementsAre("2026-01-02T00:00"));
  EXPECT_THAT(Next(MustParse("@weekly"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 1),
              ::testing::ElementsAre("2026-01-04T00:00"));
  EXPECT_THAT(Next(MustParse("@MONTHLY"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 1),
              ::testing::ElementsAre("2026-02-01T00:00"));
  EXPECT_THAT(Next(MustParse("@yearly"), absl::CivilSecond(2026, 1, 1, 10, 7, 0), 1),
              ::testing::ElementsAre("2027-01-01T00:00"));
  EXPECT_EQ(MustParse("@annually").text(), "@annually");
}

TEST(CronExpression, LeapDay_FoundYearsAhead) {
  EXPECT_THAT(Next(MustParse("0 12 29 2 *"), absl::CivilSecond(2026, 1, 1, 0, 0, 0), 2),
              ::testing::ElementsAre("2028-02-29T12:00", "2032-02-29T12:00"));
}

TEST(CronExpression, NextMatch_StopsAtBefore) {
  EXPECT_EQ(MustParse("0 12 * * *")
                .NextMatch(absl::CivilSecond(2026, 1, 1, 13, 0, 0),
                           absl::CivilSecond(2026, 1, 2, 12, 0, 0)),
            std::nullopt);
}

struct BadCron {
  const char* text;
  const char* message;
};

// One plain test over the cases: CTest finds these tests from the sources
// (two labels), which it cannot do for parameterized ones.
TEST(CronExpression, BadExpressions_FailNamingFieldAndToken) {
  const BadCron cases[] = {
      BadCron{"", "is empty"},
      BadCron{"   ", "is empty"},
      BadCron{"* * * *", "has 4 fields"},
      BadCron{"0 0 * * * *", "has 6 fields"},
      BadCron{"60 * * * *", "minute: '60' is out of range 0-59"},
      BadCron{"0 25 * * *", "hour: '25' is out of range 0-23"},
      BadCron{"0 0 0 * *", "day-of-month: '0' is out of range 1-31"},
      BadCron{"0 0 * 13 *", "month: '13' is out of range 1-12"},
      BadCron{"0 0 * * 8", "day-of-week: '8' is out of range 0-7"},
      BadCron{"0 0 * FOO *", "month: 'FOO' is neither a number in 1-12 nor a name (JAN-DEC)"},
      BadCron{"0 0 * * MONDAY", "day-of-week: 'MONDAY'"},
      BadCron{"x * * * *", "minute: 'x' is not a number in 0-59"},
      BadCron{"-1 * * * *", "minute: '-1' is not a value, a range a-b or a step */n (in 0-59)"},
      BadCron{"1- * * * *", "minute: '1-' is not a value"},
      BadCron{"/5 * * * *", "minute: '/5' is not a value"},
      BadCron{"+1 * * * *", "minute: '+1'"},
      BadCron{"*/0 * * * *", "minute: '*/0' step '0' must be a number from 1 to 59"},
      BadCron{"*/60 * * * *", "step '60'"},
      BadCron{"1,,2 * * * *", "empty list item"},
      BadCron{"1, * * * *", "minute: '1,' has an empty list item"},
      BadCron{"30-10 * * * *", "minute: '30-10' range runs backwards"},
      BadCron{"0 0 30 2 *", "never fires"},
      BadCron{"0 0 31 4,6,9,11 *", "never fires"},
      BadCron{"@reboot", "unknown macro"},
      BadCron{"? * * * *", "minute: '?'"},
      BadCron{"0 0 L * *", "day-of-month: 'L'"},
      BadCron{"1-2-3 * * * *", "minute: '2-3'"}};
  for (const BadCron& bad : cases) {
    SCOPED_TRACE(bad.text);
    EXPECT_THAT(CronExpression::Parse(bad.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)));
  }
}

TEST(CronExpression, TooLong_Fails) {
  EXPECT_THAT(CronExpression::Parse(std::string(300, '1')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 256")));
}

TEST(CronExpression, DayThirtyOneInSomeMonths_Parses) {
  // Fires only in the months that have a 31st.
  EXPECT_THAT(Next(MustParse("0 0 31 * *"), absl::CivilSecond(2026, 4, 1, 0, 0, 0), 2),
              ::testing::ElementsAre("2026-05-31T00:00", "2026-07-31T00:00"));
}

}  // namespace
}  // namespace taskboard::schedules
