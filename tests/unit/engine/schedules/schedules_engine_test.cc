// The schedules on the engine's loop, on a fake clock (docs/schedules.md):
// fires once per time across DST changes in two zones, every overlap
// policy against the previous run's state, catch-up and missed fires after
// a restart, pause, trigger, backfill bounds, the end time and deletion
// while a fire waits.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/schedules/schedules_harness.h"

namespace taskboard::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Every(const std::string& name, const std::string& cron, const std::string& extra = "",
                  const std::string& zone = "UTC") {
  return absl::StrCat("name: ", name, "\nflow: nightly\nspec:\n  cron: \"", cron,
                      "\"\n  timeZone: ", zone, "\n", extra);
}

class SchedulesEngineTest : public ::testing::Test {
 protected:
  void SetUp() override { s.JumpTo(Utc("2026-06-01T10:00:30Z")); }

  // Ends a run the schedule started (a cancel is the quickest end).
  void EndRun(const std::string& run_id) { ASSERT_TRUE(s.h.Cancel(run_id).ok()); }

  SchedulesHarness s;
};

TEST_F(SchedulesEngineTest, Create_FiresEachTimeOnce_WithItsIdempotencyKey) {
  ASSERT_TRUE(s.Create(Every("five", "*/5 * * * *", "overlap: allow_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:20:30Z"), absl::Seconds(20));
  EXPECT_THAT(s.FireTimes("five"), ElementsAre("2026-06-01T10:05:00Z", "2026-06-01T10:10:00Z",
                                               "2026-06-01T10:15:00Z", "2026-06-01T10:20:00Z"));
  v1::Schedule described = s.Describe("five");
  EXPECT_EQ(described.fires(), 4);
  EXPECT_THAT(described.next_fire_times(), SizeIs(10));
  EXPECT_EQ(described.next_fire_times(0).seconds(),
            absl::ToUnixSeconds(Utc("2026-06-01T10:25:00Z")));
  ASSERT_THAT(described.recent_actions(), SizeIs(4));
  EXPECT_EQ(described.recent_actions(0).action(), "start");  // newest first
  EXPECT_EQ(described.recent_actions(0).run_id(), s.FiredRuns("five")["2026-06-01T10:20:00Z"]);
  EXPECT_EQ(described.recent_actions(0).run_status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(SchedulesEngineTest, Create_BadFileOrUnknownFlow_IsRefusedWithTheReason) {
  absl::StatusOr<v1::Schedule> bad =
      s.Create("name: x\nflow: nightly\nspec: {cron: \"0 25 * * *\"}");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("25"));
  s.source.refuse = true;
  absl::StatusOr<v1::Schedule> missing = s.Create(Every("y", "* * * * *"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  s.source.refuse = false;
  ASSERT_TRUE(s.Create(Every("y", "* * * * *")).ok());
  EXPECT_EQ(s.Create(Every("y", "* * * * *")).status().code(), absl::StatusCode::kAlreadyExists);
}

// New York springs forward on 8 March 2026 (02:00 EST -> 03:00 EDT) and
// falls back on 1 November (02:00 EDT -> 01:00 EST).
TEST_F(SchedulesEngineTest, Dst_NewYork_SkippedHourFiresOnce_RepeatedHourOnce) {
  SchedulesHarness ny;
  ny.JumpTo(Utc("2026-03-07T12:00:00Z"));
  ASSERT_TRUE(ny.Create(Every("spring", "30 2 * * *", "overlap: allow_all\ncatchupWindow: 2h\n",
                              "America/New_York"))
                  .ok());
  ASSERT_TRUE(ny.Create(Every("fall", "30 1 * * *", "overlap: allow_all\ncatchupWindow: 2h\n",
                              "America/New_York"))
                  .ok());
  ny.StepTo(Utc("2026-03-09T12:00:00Z"), absl::Minutes(15));
  // 02:30 does not exist on the 8th: it fires at 03:30 EDT, once.
  EXPECT_THAT(ny.FireTimes("spring"), ElementsAre("2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"));
  ny.JumpTo(Utc("2026-10-31T12:00:00Z"));
  ny.h.RunOnce();  // the fires between are missed (downtime)
  ny.StepTo(Utc("2026-11-02T12:00:00Z"), absl::Minutes(15));
  std::vector<std::string> fall = ny.FireTimes("fall");
  // 01:30 happens twice on 1 November: only the first (EDT, 05:30Z) fires.
  EXPECT_THAT(fall, ::testing::Contains("2026-11-01T05:30:00Z"));
  EXPECT_THAT(fall, ::testing::Not(::testing::Contains("2026-11-01T06:30:00Z")));
  EXPECT_THAT(fall, ::testing::Contains("2026-11-02T06:30:00Z"));
}

// Berlin springs forward on 29 March 2026 (02:00 CET -> 03:00 CEST) and
// falls back on 25 October (03:00 CEST -> 02:00 CET).
TEST_F(SchedulesEngineTest, Dst_Berlin_SkippedHourFiresOnce_RepeatedHourOnce) {
  SchedulesHarness berlin;
  berlin.JumpTo(Utc("2026-03-28T12:00:00Z"));
  ASSERT_TRUE(berlin
                  .Create(Every("nightly", "30 2 * * *", "overlap: allow_all\ncatchupWindow: 2h\n",
                                "Europe/Berlin"))
                  .ok());
  berlin.StepTo(Utc("2026-03-30T12:00:00Z"), absl::Minutes(15));
  // 02:30 is skipped on the 29th: 03:30 CEST (01:30Z); the 30th at 00:30Z.
  EXPECT_THAT(berlin.FireTimes("nightly"),
              ElementsAre("2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z"));
  berlin.JumpTo(Utc("2026-10-24T12:00:00Z"));
  berlin.h.RunOnce();
  berlin.StepTo(Utc("2026-10-26T12:00:00Z"), absl::Minutes(15));
  std::vector<std::string> times = berlin.FireTimes("nightly");
  // 02:30 repeats on the 25th: once, at 02:30 CEST (00:30Z), not 01:30Z.
  EXPECT_THAT(times, ::testing::Contains("2026-10-25T00:30:00Z"));
  EXPECT_THAT(times, ::testing::Not(::testing::Contains("2026-10-25T01:30:00Z")));
  EXPECT_THAT(times, ::testing::Contains("2026-10-26T01:30:00Z"));
}

TEST_F(SchedulesEngineTest, Skip_FiresWhileTheRunRuns_AreSkipped) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *")).ok());
  s.StepTo(Utc("2026-06-01T10:03:30Z"), absl::Seconds(15));
  ASSERT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z"));
  v1::Schedule described = s.Describe("m");
  EXPECT_EQ(described.skipped(), 2);
  EXPECT_EQ(described.recent_actions(0).action(), "skip_overlap");
  EndRun(s.FiredRuns("m").begin()->second);
  s.StepTo(Utc("2026-06-01T10:04:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:04:00Z"));
}

TEST_F(SchedulesEngineTest, BufferOne_OneFireWaitsForTheRun_LaterOnesAreSkipped) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: buffer_one\n")).ok());
  s.StepTo(Utc("2026-06-01T10:03:30Z"), absl::Seconds(15));
  v1::Schedule described = s.Describe("m");
  EXPECT_EQ(described.buffered_fires(), 1);
  EXPECT_EQ(described.skipped(), 1);
  EndRun(s.FiredRuns("m").begin()->second);
  s.StepTo(Utc("2026-06-01T10:03:45Z"), absl::Seconds(1));
  // The waiting 10:02 fire runs, under its own key.
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:02:00Z"));
  EXPECT_EQ(s.Describe("m").buffered_fires(), 0);
}

TEST_F(SchedulesEngineTest, BufferAll_EveryFireRunsInTurn) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: buffer_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:03:30Z"), absl::Seconds(15));
  EXPECT_EQ(s.Describe("m").buffered_fires(), 2);
  for (int turn = 0; turn < 2; ++turn) {
    std::map<std::string, std::string> runs = s.FiredRuns("m");
    EndRun(runs.rbegin()->second);
    s.StepTo(s.Now() + absl::Seconds(2), absl::Seconds(1));
  }
  EXPECT_THAT(s.FireTimes("m"),
              ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:02:00Z", "2026-06-01T10:03:00Z"));
}

TEST_F(SchedulesEngineTest, CancelOther_CancelsTheRunningRun_ThenStarts) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: cancel_other\n")).ok());
  s.StepTo(Utc("2026-06-01T10:01:30Z"), absl::Seconds(15));
  const std::string first = s.FiredRuns("m").begin()->second;
  s.StepTo(Utc("2026-06-01T10:02:30Z"), absl::Seconds(1));
  EXPECT_EQ(s.h.Status(first), v1::RUN_STATUS_CANCELLED);
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:02:00Z"));
}

TEST_F(SchedulesEngineTest, AllowAll_StartsEveryFireAlongsideTheOthers) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:03:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), SizeIs(3));
  EXPECT_THAT(s.Describe("m").running_run_ids(), SizeIs(3));
}

TEST_F(SchedulesEngineTest, Restart_CatchesUpInsideTheWindow_RecordsOlderAsMissed) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:01:30Z"), absl::Seconds(15));
  ASSERT_THAT(s.FireTimes("m"), SizeIs(1));
  // Down from 10:01:30 to 10:10:30: 10:02..10:09 are older than a minute.
  s.JumpTo(Utc("2026-06-01T10:10:30Z"));
  s.h.Restart();
  s.h.RunOnce();
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:10:00Z"));
  v1::Schedule described = s.Describe("m");
  EXPECT_EQ(described.missed(), 8);
  EXPECT_EQ(described.fires(), 2);
}

TEST_F(SchedulesEngineTest, Restart_AfterAFire_DoesNotStartItAgain) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:01:10Z"), absl::Seconds(15));
  ASSERT_THAT(s.FireTimes("m"), SizeIs(1));
  s.h.Restart();
  s.StepTo(Utc("2026-06-01T10:01:50Z"), absl::Seconds(5));
  EXPECT_THAT(s.FireTimes("m"), SizeIs(1));
  EXPECT_EQ(s.Describe("m").fires(), 1);
}

// A crash after the runs were written but before the schedule's progress
// was (impossible here: both are one batch) would plan the fire again; its
// key finds the run instead of starting another.
TEST_F(SchedulesEngineTest, ReplannedFire_FindsItsRun_InsteadOfAnother) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  s.StepTo(Utc("2026-06-01T10:02:10Z"), absl::Seconds(15));
  const std::map<std::string, std::string> before = s.FiredRuns("m");
  absl::StatusOr<std::vector<v1::ScheduleAction>> again =
      s.Call<absl::StatusOr<std::vector<v1::ScheduleAction>>>([&](Schedules& sc) {
        return sc.Backfill("", "m", Utc("2026-06-01T10:00:30Z"), Utc("2026-06-01T10:02:05Z"), "");
      });
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_THAT(*again, SizeIs(2));
  EXPECT_EQ((*again)[0].run_id(), before.at("2026-06-01T10:01:00Z"));
  EXPECT_EQ((*again)[1].run_id(), before.at("2026-06-01T10:02:00Z"));
  EXPECT_EQ(s.FiredRuns("m"), before);
  EXPECT_EQ(s.Describe("m").fires(), 2);
}

TEST_F(SchedulesEngineTest, Pause_SkipsFiresWithoutCatchingUp_TriggerStillRuns) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  absl::StatusOr<v1::Schedule> paused = s.Call<absl::StatusOr<v1::Schedule>>(
      [](Schedules& sc) { return sc.SetPaused("", "m", true, "maintenance"); });
  ASSERT_TRUE(paused.ok());
  EXPECT_TRUE(paused->paused());
  EXPECT_EQ(paused->note(), "maintenance");
  s.StepTo(Utc("2026-06-01T10:03:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), IsEmpty());
  EXPECT_EQ(s.Describe("m").recent_actions(0).action(), "skip_paused");
  absl::StatusOr<v1::ScheduleAction> triggered = s.Call<absl::StatusOr<v1::ScheduleAction>>(
      [](Schedules& sc) { return sc.Trigger("", "m", ""); });
  ASSERT_TRUE(triggered.ok()) << triggered.status();
  EXPECT_EQ(triggered->action(), "start");
  EXPECT_EQ(triggered->manual(), "trigger");
  EXPECT_FALSE(triggered->run_id().empty());
  ASSERT_TRUE(s.Call<absl::StatusOr<v1::Schedule>>([](Schedules& sc) {
                 return sc.SetPaused("", "m", false, "done");
               }).ok());
  s.StepTo(Utc("2026-06-01T10:04:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:04:00Z"));
}

TEST_F(SchedulesEngineTest, Backfill_OverTheLimitOrIntoTheFuture_IsRefused) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  absl::StatusOr<std::vector<v1::ScheduleAction>> wide =
      s.Call<absl::StatusOr<std::vector<v1::ScheduleAction>>>([&](Schedules& sc) {
        return sc.Backfill("", "m", Utc("2026-05-01T00:00:00Z"), Utc("2026-05-02T00:00:00Z"), "");
      });
  EXPECT_EQ(wide.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wide.status().message(), HasSubstr("more than 1000 fire times"));
  absl::StatusOr<std::vector<v1::ScheduleAction>> future =
      s.Call<absl::StatusOr<std::vector<v1::ScheduleAction>>>([&](Schedules& sc) {
        return sc.Backfill("", "m", Utc("2026-06-01T09:00:00Z"), Utc("2026-06-02T00:00:00Z"), "");
      });
  EXPECT_EQ(future.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<v1::ScheduleAction>> hour =
      s.Call<absl::StatusOr<std::vector<v1::ScheduleAction>>>([&](Schedules& sc) {
        return sc.Backfill("", "m", Utc("2026-06-01T08:00:00Z"), Utc("2026-06-01T09:00:00Z"), "");
      });
  ASSERT_TRUE(hour.ok()) << hour.status();
  EXPECT_THAT(*hour, SizeIs(60));
  EXPECT_THAT(s.FireTimes("m"), SizeIs(60));
  EXPECT_EQ((*hour)[0].manual(), "backfill");
}

TEST_F(SchedulesEngineTest, EndTime_NoFireAfterIt_AndNoNextTimes) {
  ASSERT_TRUE(
      s.Create(Every("m", "* * * * *", "  endTime: 2026-06-01T10:02:00Z\noverlap: allow_all\n"))
          .ok());
  s.StepTo(Utc("2026-06-01T10:05:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z", "2026-06-01T10:02:00Z"));
  EXPECT_THAT(s.Describe("m").next_fire_times(), IsEmpty());
  EXPECT_EQ(s.h.engine().options().clock->NowMs(), absl::ToUnixMillis(s.Now()));
}

TEST_F(SchedulesEngineTest, Delete_WhileAFireWaits_StartsNothingMore) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: buffer_one\n")).ok());
  s.StepTo(Utc("2026-06-01T10:02:30Z"), absl::Seconds(15));
  ASSERT_EQ(s.Describe("m").buffered_fires(), 1);
  ASSERT_TRUE(s.Call<absl::Status>([](Schedules& sc) { return sc.Delete("", "m"); }).ok());
  EndRun(s.FiredRuns("m").begin()->second);
  s.StepTo(Utc("2026-06-01T10:05:30Z"), absl::Seconds(1));
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:01:00Z"));
  s.h.Restart();
  s.StepTo(Utc("2026-06-01T10:06:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), SizeIs(1));
  EXPECT_EQ(s.Call<absl::StatusOr<v1::Schedule>>([](Schedules& sc) { return sc.Describe("", "m"); })
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SchedulesEngineTest, FlowGone_FireIsRecordedAsError_AndTheNextOneRuns) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *", "overlap: allow_all\n")).ok());
  s.source.refuse = true;
  s.StepTo(Utc("2026-06-01T10:01:30Z"), absl::Seconds(15));
  v1::Schedule described = s.Describe("m");
  ASSERT_THAT(described.recent_actions(), SizeIs(1));
  EXPECT_EQ(described.recent_actions(0).action(), "error");
  EXPECT_THAT(described.recent_actions(0).error(), HasSubstr("not found"));
  s.source.refuse = false;
  s.StepTo(Utc("2026-06-01T10:02:30Z"), absl::Seconds(15));
  EXPECT_THAT(s.FireTimes("m"), ElementsAre("2026-06-01T10:02:00Z"));
}

TEST_F(SchedulesEngineTest, Tenants_SeeOnlyTheirOwnSchedules) {
  ASSERT_TRUE(s.Create(Every("m", "* * * * *"), "acme").ok());
  ASSERT_TRUE(s.Create(Every("m", "* * * * *"), "globex").ok());
  std::vector<v1::Schedule> acme =
      s.Call<std::vector<v1::Schedule>>([](Schedules& sc) { return sc.List("acme"); });
  ASSERT_THAT(acme, SizeIs(1));
  EXPECT_EQ(acme[0].tenant(), "acme");
  EXPECT_EQ(s.Call<absl::StatusOr<v1::Schedule>>(
                 [](Schedules& sc) { return sc.Describe("initech", "m"); })
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace taskboard::engine::testing
