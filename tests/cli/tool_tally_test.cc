#include "tools/cli/tool_tally.h"

#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/tasks_by_phase.h"

namespace taskboard::cli {
namespace {

using testing::MakeRun;
using testing::ParseText;

v1::Observation Call(const std::string& task_id, bool cached = false, bool failed = false) {
  v1::Observation observation = ParseText<v1::Observation>(R"pb(tool_name: "read_file")pb");
  observation.set_task_id(task_id);
  observation.set_cached(cached);
  if (failed) observation.set_error("no such file");
  return observation;
}

TEST(ToolTally, Add_CountsCallsCacheHitsAndErrorsPerTaskAndInTotal) {
  ToolTally tally;
  tally.Add(Call("discover"));
  tally.Add(Call("summarize[0]", /*cached=*/true));
  tally.Add(Call("summarize[0]", /*cached=*/false, /*failed=*/true));
  EXPECT_EQ(tally.total().calls, 3);
  EXPECT_EQ(tally.total().cached, 1);
  EXPECT_EQ(tally.total().failed, 1);
  EXPECT_EQ(tally.OfTask("summarize[0]").calls, 2);
  EXPECT_EQ(tally.OfTask("discover").cached, 0);
  EXPECT_EQ(tally.OfTask("report").calls, 0);
}

TEST(ToolTally, OfPhase_SumsTheTasksOfThePhase) {
  const v1::Run run = MakeRun(R"pb(
    tasks { task_id: "discover" phase_id: "discover" }
    tasks { task_id: "summarize[0]" phase_id: "summarize" }
    tasks { task_id: "summarize[1]" phase_id: "summarize" }
  )pb");
  ToolTally tally;
  tally.Add(Call("discover"));
  tally.Add(Call("summarize[0]"));
  tally.Add(Call("summarize[1]", /*cached=*/true));
  tally.Add(Call("summarize[1]", /*cached=*/true));
  const ToolCount summarize = tally.OfPhase(TasksByPhase(run).Of("summarize"), "summarize");
  EXPECT_EQ(summarize.calls, 3);
  EXPECT_EQ(summarize.cached, 2);
  EXPECT_EQ(tally.OfPhase(TasksByPhase(run).Of("discover"), "discover").calls, 1);
}

TEST(ToolTally, OfPhase_NoTaskInTheSnapshot_CountsTheTaskNamedLikeThePhase) {
  ToolTally tally;
  tally.Add(Call("discover"));
  EXPECT_EQ(tally.OfPhase({}, "discover").calls, 1);
}

TEST(FormatToolCount, ShowsHitsAndErrorsOnlyWhenThereAreSome) {
  EXPECT_EQ(FormatToolCount({}), "");
  EXPECT_EQ(FormatToolCount({.calls = 3}), "tools 3");
  EXPECT_EQ(FormatToolCount({.calls = 12, .cached = 11}), "tools 12 (11 cached)");
  EXPECT_EQ(FormatToolCount({.calls = 4, .cached = 1, .failed = 2}),
            "tools 4 (1 cached, 2 failed)");
}

}  // namespace
}  // namespace taskboard::cli
