// The deadline line of `taskboard show` (docs/semantics.md#run-deadlines):
// how long, who set it, and whether it ended the run.

#include "tools/cli/run_deadline_line.h"

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"

namespace taskboard::cli {
namespace {

using testing::ParseText;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

v1::Run RunOf(const std::string& text) { return ParseText<v1::Run>(text); }

TEST(RunDeadlineLine, NoDeadline_NoLine) {
  EXPECT_EQ(RunDeadlineLine(RunOf("status: RUN_STATUS_RUNNING"), kNow), "");
}

TEST(RunDeadlineLine, TimedOut_NamesTheDeadlineThatEndedIt) {
  EXPECT_EQ(
      RunDeadlineLine(RunOf(R"pb(
                        status: RUN_STATUS_TIMED_OUT
                        deadline { timeout_seconds: 30 source: RUN_DEADLINE_SOURCE_SCHEDULE })pb"),
                      kNow),
      "deadline: 30s (schedule) passed: it ended the run");
}

TEST(RunDeadlineLine, Running_SaysWhatIsLeft) {
  EXPECT_EQ(RunDeadlineLine(RunOf(R"pb(
                              status: RUN_STATUS_RUNNING
                              deadline {
                                timeout_seconds: 30
                                source: RUN_DEADLINE_SOURCE_FLOW
                                deadline_at { seconds: 1800000012 }
                              })pb"),
                            kNow),
            "deadline: 30s (flow), 12.0s left");
}

TEST(RunDeadlineLine, EndedOtherwise_NotReached) {
  EXPECT_EQ(
      RunDeadlineLine(RunOf(R"pb(
                        status: RUN_STATUS_COMPLETED
                        deadline { timeout_seconds: 5 source: RUN_DEADLINE_SOURCE_SUBMIT })pb"),
                      kNow),
      "deadline: 5s (submit), not reached");
}

}  // namespace
}  // namespace taskboard::cli
