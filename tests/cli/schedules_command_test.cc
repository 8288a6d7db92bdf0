// `taskboard schedules` (docs/schedules.md#cli): what `describe` prints, and
// a bad schedule file refused locally, with every problem, before any call.

#include "tools/cli/schedules_command.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

google::protobuf::Timestamp At(int64_t seconds) {
  google::protobuf::Timestamp stamp;
  stamp.set_seconds(seconds);
  return stamp;
}

TEST(SchedulesCommand, PrintSchedule_ShowsStateNextTimesAndRecentActions) {
  v1::Schedule schedule;
  schedule.set_name("nightly");
  schedule.set_flow("audit");
  schedule.set_paused(true);
  schedule.set_note("repo frozen");
  schedule.set_overlap("skip");
  schedule.set_catchup_window_seconds(60);
  schedule.set_fires(3);
  schedule.set_missed(2);
  *schedule.add_next_fire_times() = At(1'796'000'400);  // 2026-11-30T01:00:00Z
  v1::ScheduleAction* action = schedule.add_recent_actions();
  *action->mutable_fire_time() = At(1'795'914'000);
  action->set_action("start");
  action->set_run_id("run-01ABC");
  action->set_run_status(v1::RUN_STATUS_COMPLETED);
  std::ostringstream out;
  PrintSchedule(schedule, 0, out);
  EXPECT_THAT(out.str(), HasSubstr("flow      audit (latest)"));
  EXPECT_THAT(out.str(), HasSubstr("state     paused: repo frozen"));
  EXPECT_THAT(out.str(), HasSubstr("3 started, 2 missed"));
  EXPECT_THAT(out.str(), HasSubstr("  2026-11-30T01:00:00Z\n"));
  EXPECT_THAT(out.str(), HasSubstr("run-01ABC"));
  EXPECT_THAT(out.str(), HasSubstr("completed"));
}

TEST(SchedulesCommand, Create_BadFile_ExitsOneWithEveryProblem_WithoutCalling) {
  taskboard::testing::TempDir dir;
  const std::string path = (dir.path() / "bad.yaml").string();
  std::ofstream(path) << "name: x\nflow: audit\nspec: {cron: \"0 25 * * *\"}\noverlap: sometimes\n";
  SchedulesOptions options;
  options.path = path;
  options.scheduler = "127.0.0.1:1";  // nothing listens: a call would exit 2
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunSchedulesCreate(options, out, err), 1) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("25"));
  EXPECT_THAT(err.str(), HasSubstr("sometimes"));
  EXPECT_THAT(out.str(), Not(HasSubstr("created")));
}

TEST(SchedulesCommand, Backfill_BadTime_ExitsOneNamingTheFlag) {
  SchedulesOptions options;
  options.name = "nightly";
  options.from = "yesterday";
  options.to = "2026-11-01T00:00:00Z";
  options.scheduler = "127.0.0.1:1";
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunSchedulesBackfill(options, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("--from 'yesterday' is not an RFC 3339 time"));
}

}  // namespace
}  // namespace taskboard::cli
