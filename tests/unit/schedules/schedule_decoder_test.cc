#include "scheduler/schedules/schedule_decoder.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::schedules {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kFull[] = R"(
name: nightly-audit
flow: dependency-audit
flowVersion: 3
args: {repo: "github.com/acme/api", depth: 2}
labels: {team: infra}
runTimeoutSeconds: 3600
spec:
  cron:
    - "0 2 * * *"
    - {expression: "0 9 * * MON-FRI", timeZone: America/New_York}
  timeZone: Europe/Berlin
  interval: [6h, {every: 1h, offset: 15m}]
  startTime: "2026-12-01T00:00:00Z"
  endTime: "2027-12-01T00:00:00Z"
  jitter: 30s
overlap: buffer_all
catchupWindow: 5m
paused: true
note: created for the audit
)";

TEST(LoadScheduleText, FullFile_DecodesEveryField) {
  absl::StatusOr<ScheduleDefinition> schedule = LoadScheduleText(kFull);
  ASSERT_THAT(schedule, IsOk());
  EXPECT_EQ(schedule->name, "nightly-audit");
  EXPECT_EQ(schedule->flow, "dependency-audit");
  EXPECT_EQ(schedule->flow_version, 3);
  EXPECT_EQ(schedule->args["depth"], 2);
  EXPECT_THAT(schedule->labels, ElementsAre(Pair("team", "infra")));
  ASSERT_EQ(schedule->spec.crons.size(), 2u);
  EXPECT_EQ(schedule->spec.crons[0].zone_name, "Europe/Berlin");
  EXPECT_EQ(schedule->spec.crons[1].zone_name, "America/New_York");
  EXPECT_EQ(schedule->spec.crons[1].cron.text(), "0 9 * * MON-FRI");
  ASSERT_EQ(schedule->spec.intervals.size(), 2u);
  EXPECT_EQ(schedule->spec.intervals[0].every, absl::Hours(6));
  EXPECT_EQ(schedule->spec.intervals[1].offset, absl::Minutes(15));
  EXPECT_EQ(schedule->spec.jitter, absl::Seconds(30));
  EXPECT_EQ(schedule->spec.start_time,
            absl::FromCivil(absl::CivilSecond(2026, 12, 1, 0, 0, 0), absl::UTCTimeZone()));
  EXPECT_EQ(schedule->policies.overlap, OverlapPolicy::kBufferAll);
  EXPECT_EQ(schedule->policies.catchup_window, absl::Minutes(5));
  EXPECT_TRUE(schedule->paused);
  EXPECT_EQ(schedule->note, "created for the audit");
  EXPECT_EQ(schedule->run_timeout_seconds, 3600);
}

TEST(LoadScheduleText, Minimal_DefaultsApply) {
  absl::StatusOr<ScheduleDefinition> schedule =
      LoadScheduleText("name: s\nflow: f\nspec: {cron: \"@hourly\"}\n");
  ASSERT_THAT(schedule, IsOk());
  EXPECT_EQ(schedule->spec.crons[0].zone_name, "UTC");
  EXPECT_EQ(schedule->policies.overlap, OverlapPolicy::kSkip);
  EXPECT_EQ(schedule->policies.catchup_window, absl::Minutes(1));
  EXPECT_FALSE(schedule->flow_version.has_value());
  EXPECT_FALSE(schedule->paused);
}

TEST(LoadScheduleText, Json_Accepted) {
  EXPECT_THAT(LoadScheduleText(R"({"name": "s", "flow": "f", "spec": {"interval": "90s"}})"),
              IsOk());
}

TEST(LoadScheduleText, EveryProblem_ReportedWithItsPath) {
  constexpr char kBad[] = R"(
name: "bad name"
spec:
  cron: ["0 25 * * *", {expression: "0 0 * * *", timeZone: Mars/Olympus}, 5]
  interval: {every: 0s}
  jitter: 2d
  startTme: "2026-01-01T00:00:00Z"
overlap: bufferAll
catchupWindow: 1s
labels: {team: 5}
)";
  EXPECT_THAT(
      LoadScheduleText(kBad),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("name: schedule name 'bad name' must start"),
                     HasSubstr("flow: missing saved flow name"),
                     HasSubstr("spec.cron[0]: cron \"0 25 * * *\": hour: '25' is out of range"),
                     HasSubstr("spec.cron[1].timeZone: unknown time zone \"Mars/Olympus\""),
                     HasSubstr("spec.cron[2]: must be a cron expression"),
                     HasSubstr("spec.interval: interval every 0 must be whole seconds"),
                     HasSubstr("spec.startTme"), HasSubstr("overlap: unknown overlap policy"),
                     HasSubstr("catchupWindow: must be from 10s to 366d"),
                     HasSubstr("labels.team: must be text"))));
}

TEST(LoadScheduleText, SpecWithoutTimes_Fails) {
  EXPECT_THAT(LoadScheduleText("name: s\nflow: f\nspec: {timeZone: UTC}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec: schedule spec names no times")));
  EXPECT_THAT(LoadScheduleText("name: s\nflow: f\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec: missing spec")));
}

TEST(LoadScheduleText, BadTime_FailsWithTheForm) {
  EXPECT_THAT(LoadScheduleText("name: s\nflow: f\nspec: {cron: \"@daily\", endTime: tomorrow}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.endTime: 'tomorrow' is not an RFC 3339 time")));
}

TEST(LoadScheduleText, Bounds_Enforced) {
  EXPECT_THAT(LoadScheduleText(std::string(kMaxScheduleTextBytes + 1, ' ') + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 65536")));
  EXPECT_THAT(LoadScheduleText(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("schedule text is empty")));
  std::string many = "name: s\nflow: f\nspec:\n  cron:\n";
  for (int i = 0; i < kMaxSpecItems + 1; ++i) many += "    - \"@daily\"\n";
  EXPECT_THAT(LoadScheduleText(many),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 32 are accepted")));
  EXPECT_THAT(LoadScheduleText("name: s\nflow: f\nspec: {cron: \"@daily\"}\nargs: [1]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("args: must be an object")));
}

TEST(LoadScheduleText, NotYamlOrUtf8_Fails) {
  EXPECT_THAT(LoadScheduleText("name: [unclosed\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line")));
  EXPECT_THAT(LoadScheduleText("name: \xff\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not valid UTF-8")));
}

}  // namespace
}  // namespace taskboard::schedules
