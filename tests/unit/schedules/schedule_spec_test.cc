#include "scheduler/schedules/schedule_spec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/schedules/zoned_cron.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::schedules {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Time Utc(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error)) << error;
  return time;
}

CronItem Cron(const std::string& expression, const std::string& zone) {
  absl::StatusOr<CronItem> item = MakeCronItem(expression, zone);
  EXPECT_THAT(item, IsOk());
  return *std::move(item);
}

// The next `n` nominal times after `from` as UTC strings.
std::vector<std::string> Nominals(const ScheduleSpec& spec, const std::string& from, int n) {
  std::vector<std::string> out;
  for (const FireTime& fire : NextFireTimes(spec, "s-1", Utc(from), n)) {
    out.push_back(FormatFireTime(fire.nominal));
  }
  return out;
}

ScheduleSpec CronSpec(const std::string& expression, const std::string& zone) {
  ScheduleSpec spec;
  spec.crons.push_back(Cron(expression, zone));
  return spec;
}

// America/New_York, 2026: 02:00 EST -> 03:00 EDT on March 8 (07:00Z), 02:00
// EDT -> 01:00 EST on November 1 (06:00Z).
TEST(ZonedCron, NewYorkSpringForward_SkippedTimeFiresOnceShifted) {
  EXPECT_THAT(Nominals(CronSpec("30 2 * * *", "America/New_York"), "2026-03-07T00:00:00Z", 3),
              ElementsAre("2026-03-07T07:30:00Z",    // 02:30 EST
                          "2026-03-08T07:30:00Z",    // 02:30 skipped: 03:30 EDT
                          "2026-03-09T06:30:00Z"));  // 02:30 EDT
}

TEST(ZonedCron, NewYorkSpringForward_DenseScheduleHasNoDuplicates) {
  EXPECT_THAT(Nominals(CronSpec("*/30 * * * *", "America/New_York"), "2026-03-08T05:59:00Z", 5),
              ElementsAre("2026-03-08T06:00:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z",
                          "2026-03-08T07:30:00Z", "2026-03-08T08:00:00Z"));
}

TEST(ZonedCron, NewYorkSpringForward_ShiftedTimeKeepsOrderWithRealTimes) {
  // 02:45 (skipped) fires at 03:45 EDT, after the real 03:15 EDT.
  EXPECT_THAT(Nominals(CronSpec("15,45 2,3 * * *", "America/New_York"), "2026-03-08T06:00:00Z", 4),
              ElementsAre("2026-03-08T07:15:00Z", "2026-03-08T07:45:00Z", "2026-03-09T06:15:00Z",
                          "2026-03-09T06:45:00Z"));
  ScheduleSpec two;
  two.crons.push_back(Cron("45 2 * * *", "America/New_York"));
  two.crons.push_back(Cron("15 3 * * *", "America/New_York"));
  EXPECT_THAT(Nominals(two, "2026-03-08T06:00:00Z", 2),
              ElementsAre("2026-03-08T07:15:00Z", "2026-03-08T07:45:00Z"));
}

TEST(ZonedCron, NewYorkFallBack_RepeatedTimeFiresOnceAtFirstOccurrence) {
  EXPECT_THAT(Nominals(CronSpec("30 1 * * *", "America/New_York"), "2026-10-31T12:00:00Z", 2),
              ElementsAre("2026-11-01T05:30:00Z",    // 01:30 EDT, not 01:30 EST
                          "2026-11-02T06:30:00Z"));  // 01:30 EST
  EXPECT_THAT(Nominals(CronSpec("*/30 * * * *", "America/New_York"), "2026-11-01T04:59:00Z", 4),
              ElementsAre("2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z",
                          "2026-11-01T07:00:00Z",  // the repeated hour is not run again
                          "2026-11-01T07:30:00Z"));
}

TEST(ZonedCron, NewYorkFallBack_AskedInsideRepeatedHour_DoesNotRepeat) {
  const CronItem item = Cron("30 1 * * *", "America/New_York");
  // 01:10 EST, the second 01:10.
  EXPECT_EQ(NextCronTime(item.cron, item.zone, Utc("2026-11-01T06:10:00Z")),
            Utc("2026-11-02T06:30:00Z"));
  const CronItem two = Cron("0 2 * * *", "America/New_York");
  EXPECT_EQ(NextCronTime(two.cron, two.zone, Utc("2026-11-01T06:10:00Z")),
            Utc("2026-11-01T07:00:00Z"));
}

TEST(ZonedCron, NewYorkSpringForward_AskedJustAfterJump_FindsShiftedTime) {
  // At 03:10 EDT, 02:30's shifted fire (03:30 EDT) is still ahead.
  const CronItem item = Cron("30 2 * * *", "America/New_York");
  EXPECT_EQ(NextCronTime(item.cron, item.zone, Utc("2026-03-08T07:10:00Z")),
            Utc("2026-03-08T07:30:00Z"));
  EXPECT_EQ(NextCronTime(item.cron, item.zone, Utc("2026-03-08T07:30:00Z")),
            Utc("2026-03-09T06:30:00Z"));
}

// Europe/Berlin, 2026: 02:00 CET -> 03:00 CEST on March 29 (01:00Z), 03:00
// CEST -> 02:00 CET on October 25 (01:00Z).
TEST(ZonedCron, BerlinSpringForward_SkippedTimeFiresOnceShifted) {
  EXPECT_THAT(Nominals(CronSpec("30 2 * * *", "Europe/Berlin"), "2026-03-28T00:00:00Z", 3),
              ElementsAre("2026-03-28T01:30:00Z",    // 02:30 CET
                          "2026-03-29T01:30:00Z",    // 02:30 skipped: 03:30 CEST
                          "2026-03-30T00:30:00Z"));  // 02:30 CEST
}

TEST(ZonedCron, BerlinFallBack_RepeatedTimeFiresOnceAtFirstOccurrence) {
  EXPECT_THAT(Nominals(CronSpec("30 2 * * *", "Europe/Berlin"), "2026-10-24T12:00:00Z", 2),
              ElementsAre("2026-10-25T00:30:00Z",    // 02:30 CEST
                          "2026-10-26T01:30:00Z"));  // 02:30 CET
  EXPECT_THAT(Nominals(CronSpec("0 * * * *", "Europe/Berlin"), "2026-10-24T23:30:00Z", 3),
              ElementsAre("2026-10-25T00:00:00Z",  // 02:00 CEST
                          "2026-10-25T02:00:00Z",  // 03:00 CET; 02:00 CET was a repeat
                          "2026-10-25T03:00:00Z"));
}

// Australia/Lord_Howe moves by 30 minutes: 02:00 +11 -> 01:30 +10:30 on
// April 5, 2026; 02:00 +10:30 -> 02:30 +11 on October 4, 2026.
TEST(ZonedCron, LordHoweHalfHourShifts) {
  EXPECT_THAT(Nominals(CronSpec("45 1 * * *", "Australia/Lord_Howe"), "2026-04-04T00:00:00Z", 2),
              ElementsAre("2026-04-04T14:45:00Z",    // 01:45 +11, first occurrence
                          "2026-04-05T15:15:00Z"));  // 01:45 +10:30 the next day
  EXPECT_THAT(Nominals(CronSpec("15 2 * * *", "Australia/Lord_Howe"), "2026-10-03T00:00:00Z", 2),
              ElementsAre("2026-10-03T15:45:00Z",    // 02:15 skipped: 02:45 +11
                          "2026-10-04T15:15:00Z"));  // 02:15 +11
}

TEST(ScheduleSpec, CronAndInterval_MergedAndDeduplicated) {
  ScheduleSpec spec = CronSpec("0 * * * *", "UTC");
  spec.intervals.push_back(*MakeIntervalItem(absl::Minutes(30), absl::ZeroDuration()));
  EXPECT_THAT(Nominals(spec, "2026-01-01T10:10:00Z", 4),
              ElementsAre("2026-01-01T10:30:00Z", "2026-01-01T11:00:00Z", "2026-01-01T11:30:00Z",
                          "2026-01-01T12:00:00Z"));
}

TEST(ScheduleSpec, IntervalOffset_AlignedToEpoch) {
  ScheduleSpec spec;
  spec.intervals.push_back(*MakeIntervalItem(absl::Hours(1), absl::Minutes(15)));
  EXPECT_THAT(Nominals(spec, "2026-01-01T10:15:00Z", 2),
              ElementsAre("2026-01-01T11:15:00Z", "2026-01-01T12:15:00Z"));
}

TEST(ScheduleSpec, IntervalAcrossDst_KeepsRealSpacing) {
  ScheduleSpec spec;
  spec.intervals.push_back(*MakeIntervalItem(absl::Minutes(30), absl::ZeroDuration()));
  EXPECT_THAT(Nominals(spec, "2026-11-01T05:50:00Z", 3),
              ElementsAre("2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z"));
}

TEST(ScheduleSpec, StartAndEnd_BoundNominalTimesInclusively) {
  ScheduleSpec spec = CronSpec("0 * * * *", "UTC");
  spec.start_time = Utc("2026-01-01T12:00:00Z");
  spec.end_time = Utc("2026-01-01T14:00:00Z");
  EXPECT_THAT(Nominals(spec, "2026-01-01T00:00:00Z", 10),
              ElementsAre("2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z", "2026-01-01T14:00:00Z"));
  EXPECT_EQ(NextNominalTime(spec, Utc("2026-01-01T14:00:00Z")), std::nullopt);
  EXPECT_EQ(NextNominalTime(spec, Utc("2025-01-01T00:00:00Z")), Utc("2026-01-01T12:00:00Z"));
}

TEST(ScheduleSpec, Jitter_DeterministicWithinBoundAndPerSchedule) {
  ScheduleSpec spec = CronSpec("* * * * *", "UTC");
  spec.jitter = absl::Seconds(30);
  const std::vector<FireTime> first = NextFireTimes(spec, "s-1", Utc("2026-01-01T00:00:00Z"), 50);
  const std::vector<FireTime> again = NextFireTimes(spec, "s-1", Utc("2026-01-01T00:00:00Z"), 50);
  const std::vector<FireTime> other = NextFireTimes(spec, "s-2", Utc("2026-01-01T00:00:00Z"), 50);
  ASSERT_EQ(first.size(), 50u);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  int delayed = 0;
  for (const FireTime& fire : first) {
    EXPECT_GE(fire.actual, fire.nominal);
    EXPECT_LT(fire.actual, fire.nominal + absl::Seconds(30));
    if (fire.actual > fire.nominal) ++delayed;
  }
  EXPECT_GT(delayed, 40);  // a hash, not a constant
}

TEST(ScheduleSpec, NextFireTimes_CappedAtLimit) {
  const ScheduleSpec spec = CronSpec("* * * * *", "UTC");
  EXPECT_EQ(NextFireTimes(spec, "s", Utc("2026-01-01T00:00:00Z"), 5000).size(),
            static_cast<size_t>(kMaxFireTimesPerCall));
  EXPECT_TRUE(NextFireTimes(spec, "s", Utc("2026-01-01T00:00:00Z"), 0).empty());
}

TEST(ScheduleSpec, UnknownZone_FailsNamingIt) {
  EXPECT_THAT(MakeCronItem("0 0 * * *", "Mars/Olympus"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown time zone \"Mars/Olympus\"")));
}

TEST(ScheduleSpec, BadInterval_Fails) {
  EXPECT_THAT(MakeIntervalItem(absl::Milliseconds(500), absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("whole seconds from 1s")));
  EXPECT_THAT(MakeIntervalItem(absl::Hours(1), absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("less than every")));
}

TEST(ScheduleSpec, Check_RejectsEmptyBackwardsAndBigJitter) {
  EXPECT_THAT(CheckScheduleSpec(ScheduleSpec{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no times")));
  ScheduleSpec spec = CronSpec("0 0 * * *", "UTC");
  EXPECT_THAT(CheckScheduleSpec(spec), IsOk());
  spec.start_time = Utc("2026-02-01T00:00:00Z");
  spec.end_time = Utc("2026-01-01T00:00:00Z");
  EXPECT_THAT(CheckScheduleSpec(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is before its start")));
  spec.end_time.reset();
  spec.jitter = absl::Hours(25);
  EXPECT_THAT(CheckScheduleSpec(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("jitter")));
}

TEST(FireTime, IdempotencyKeys_NameScheduleAndTime) {
  EXPECT_EQ(FireIdempotencyKey("nightly", Utc("2026-03-08T07:30:00Z")),
            "schedule:nightly@2026-03-08T07:30:00Z");
  EXPECT_EQ(TriggerIdempotencyKey("nightly", Utc("2026-03-08T07:30:00.25Z")),
            "schedule:nightly/trigger@2026-03-08T07:30:00.25Z");
}

}  // namespace
}  // namespace taskboard::schedules
