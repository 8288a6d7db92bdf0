#include "tools/cli/transition_lines.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/run_snapshot.h"

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

// A log told which tasks changed (RunSnapshot::TakeChangedTasks) prints what
// one that looks at every task prints, batch after batch of a busy board:
// tasks created out of order, started, finished, gated, one retried.
TEST(TransitionLines, ChangedTasksOnly_SameLinesAsLookingAtEveryTask) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    kind: FLOW_KIND_BOARD
    status: RUN_STATUS_RUNNING
    created_at { seconds: 100 }
    last_seq: 1
  )pb"));
  TransitionLog told;
  TransitionLog scanning;
  int64_t seq = 1;
  const auto task = [](int i, v1::TaskState state) {
    v1::Task t;
    t.set_task_id(absl::StrCat("t", i));
    t.set_state(state);
    if (state != v1::TASK_STATE_PENDING && state != v1::TASK_STATE_READY) {
      t.mutable_started_at()->set_seconds(100 + i);
    }
    if (state == v1::TASK_STATE_COMPLETED || state == v1::TASK_STATE_FAILED) {
      t.mutable_finished_at()->set_seconds(101 + i);
    }
    if (i % 7 == 3 && state == v1::TASK_STATE_COMPLETED) t.mutable_gate()->set_pass(i % 2 == 0);
    return t;
  };
  const auto apply = [&](std::vector<v1::Task> tasks, bool created) {
    v1::RunEvent event;
    event.set_seq(++seq);
    if (created) {
      for (v1::Task& t : tasks) *event.mutable_tasks_created()->add_tasks() = std::move(t);
      snapshot.Apply(std::move(event));
      return;
    }
    for (v1::Task& t : tasks) {
      event.set_seq(++seq);
      *event.mutable_task_change()->mutable_task() = std::move(t);
      snapshot.Apply(event);
    }
  };
  int batches = 0;
  const auto expect_same = [&] {
    const v1::Run& run = snapshot.run();
    const absl::Time now = absl::FromUnixSeconds(200);
    const std::vector<std::string> lines = told.Lines(run, now, snapshot.TakeChangedTasks());
    EXPECT_EQ(lines, scanning.Lines(run, now)) << "batch " << batches;
    ++batches;
  };

  std::vector<v1::Task> created;
  for (int i = 39; i >= 0; --i) created.push_back(task(i, v1::TASK_STATE_READY));
  apply(std::move(created), /*created=*/true);
  expect_same();  // after a Reset: the told log looks at every task
  for (int round = 0; round < 4; ++round) {
    std::vector<v1::Task> changes;
    for (int i = round; i < 40; i += 4) changes.push_back(task(i, v1::TASK_STATE_RUNNING));
    apply(std::move(changes), false);
    expect_same();
    changes.clear();
    for (int i = round; i < 40; i += 4) {
      changes.push_back(task(i, i == 9 ? v1::TASK_STATE_RETRYING : v1::TASK_STATE_COMPLETED));
    }
    apply(std::move(changes), false);
    expect_same();
    expect_same();  // nothing changed in between
  }
  apply({task(9, v1::TASK_STATE_RUNNING), task(9, v1::TASK_STATE_FAILED)}, false);
  apply({task(40, v1::TASK_STATE_READY)}, /*created=*/true);
  expect_same();
  EXPECT_EQ(batches, 14);
}

}  // namespace
}  // namespace taskboard::cli
