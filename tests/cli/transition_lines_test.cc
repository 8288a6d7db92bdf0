#include "tools/cli/transition_lines.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_fixtures.h"

namespace taskboard::cli {
namespace {

using testing::At;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::kAuditFlow;
using testing::kAuditMidRun;
using testing::kAuditStarting;
using testing::MakeRun;

TEST(TransitionLines, OneLinePerPhaseThatChanged_StampedWithItsOwnTime) {
  const v1::Run before = MakeRun(kAuditStarting, kAuditFlow);
  const v1::Run after = MakeRun(kAuditMidRun, kAuditFlow);
  EXPECT_THAT(TransitionLines(before, after, At(absl::Seconds(65))),
              ElementsAre("[+13.3s] ✓ discover  completed  12.3s  ↑1.2k ↓310 $0.0021",
                          "[+3.0s] ✗ precheck  failed  2.0s  exit status 3: config not found",
                          "[+14.0s] ◐ files  running",
                          "[+17.1s] ✓ policy  completed  3.1s  PASS: no secrets found",
                          "[+1m05s] ⊘ lint  skipped  upstream phase 'precheck' failed"));
}

TEST(TransitionLines, FirstSnapshot_AnnouncesOnlyPhasesThatStarted) {
  EXPECT_THAT(TransitionLines(v1::Run(), MakeRun(kAuditStarting, kAuditFlow), At(absl::Seconds(5))),
              ElementsAre("[+1.0s] ◐ discover  running", "[+1.0s] ◐ precheck  running"));
}

TEST(TransitionLines, SameSnapshot_PrintsNothing) {
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  EXPECT_THAT(TransitionLines(run, run, At(absl::Seconds(70))), IsEmpty());
}

TEST(TransitionLines, FinishedMap_ReportsItemsAndBlockingGate) {
  const v1::Run before = MakeRun(R"pb(
    created_at { seconds: 1700000000 }
    phases { phase_id: "m" type: PHASE_TYPE_MAP state: TASK_STATE_RUNNING }
    phases { phase_id: "g" type: PHASE_TYPE_GATE state: TASK_STATE_RUNNING }
  )pb");
  const v1::Run after = MakeRun(R"pb(
    created_at { seconds: 1700000000 }
    phases {
      phase_id: "m"
      type: PHASE_TYPE_MAP
      state: TASK_STATE_FAILED
      items_total: 3
      items_done: 2
      items_failed: 1
      started_at { seconds: 1700000001 }
      finished_at { seconds: 1700000009 }
    }
    phases {
      phase_id: "g"
      type: PHASE_TYPE_GATE
      state: TASK_STATE_COMPLETED
      finished_at { seconds: 1700000010 }
      gate { pass: false reason: "no" }
    }
  )pb");
  EXPECT_THAT(TransitionLines(before, after, At(absl::Seconds(11))),
              ElementsAre("[+9.0s] ✗ m  failed  2/3 items, 1 failed  8.0s",
                          "[+10.0s] ⛔ g  completed  BLOCK: no"));
}

TEST(TransitionLines, Board_TracksTasksAndPatternPhase) {
  const v1::Run before = MakeRun(R"pb(
    board_meta: "planning"
    tasks { task_id: "plan" state: TASK_STATE_RUNNING }
  )pb");
  const v1::Run after = MakeRun(R"pb(
    board_meta: "active"
    tasks { task_id: "plan" state: TASK_STATE_COMPLETED }
    tasks { task_id: "step-1" state: TASK_STATE_READY }
  )pb");
  // No creation time in these snapshots: lines carry no stamp.
  EXPECT_THAT(TransitionLines(before, after, At(absl::Seconds(1))),
              ElementsAre("✓ plan  completed", "◌ step-1  ready", "· active"));
}

}  // namespace
}  // namespace taskboard::cli
