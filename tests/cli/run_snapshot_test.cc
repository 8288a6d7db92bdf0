// RunSnapshot: a GetRun answer plus the events after it gives what GetRun
// would answer after them, and events it cannot apply ask for a fetch.
// (tests/integration/follow_snapshot_test.cc compares it with a real
// scheduler's GetRun.)

#include "tools/cli/run_snapshot.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"

namespace taskboard::cli {
namespace {

using Applied = RunSnapshot::Applied;
using ::testing::ElementsAre;
using testing::MakeRun;
using testing::ParseText;

// `text` as the event with this seq.
v1::RunEvent Event(int64_t seq, const std::string& text) {
  v1::RunEvent event = ParseText<v1::RunEvent>(text);
  event.set_seq(seq);
  event.set_run_id("r-1");
  return event;
}

std::string Diff(const v1::Run& got, const v1::Run& want) {
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  differ.ReportDifferencesToString(&diff);
  differ.Compare(want, got);
  return diff;
}

std::vector<std::string> TaskIds(const v1::Run& run) {
  std::vector<std::string> ids;
  for (const v1::Task& task : run.tasks()) ids.push_back(task.task_id());
  return ids;
}

TEST(RunSnapshot, TaskOrder_ShorterIdsFirstThenBytes) {
  EXPECT_TRUE(RunSnapshot::TaskOrder("t9", "t10"));
  EXPECT_TRUE(RunSnapshot::TaskOrder("b[9]", "a[10]"));
  EXPECT_TRUE(RunSnapshot::TaskOrder("a[1]", "b[0]"));
  EXPECT_FALSE(RunSnapshot::TaskOrder("t10", "t10"));
}

// A taskflow as the scheduler reports it: a map of three items running
// beside an agent phase, items created out of GetRun's order, one retried.
TEST(RunSnapshot, TaskflowEvents_GiveWhatGetRunGivesAfterThem) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    kind: FLOW_KIND_TASKFLOW
    status: RUN_STATUS_RUNNING
    last_seq: 2
    tasks_total: 1
    phases { phase_id: "lint" type: PHASE_TYPE_AGENT state: TASK_STATE_RUNNING }
    phases { phase_id: "each" type: PHASE_TYPE_MAP state: TASK_STATE_PENDING }
    tasks { task_id: "lint" phase_id: "lint" state: TASK_STATE_RUNNING }
  )pb"));
  const std::vector<std::string> events = {
      R"pb(phase_change {
             phase {
               phase_id: "each"
               type: PHASE_TYPE_MAP
               state: TASK_STATE_RUNNING
               items_total: 11
             }
           })pb",
      R"pb(task_change {
             task { task_id: "each[10]" phase_id: "each" item_index: 10 state: TASK_STATE_READY }
           })pb",
      R"pb(task_change {
             task { task_id: "each[2]" phase_id: "each" item_index: 2 state: TASK_STATE_READY }
           })pb",
      R"pb(output_delta { task_id: "lint" text: "ok" })pb",
      R"pb(task_change {
             task {
               task_id: "each[2]"
               phase_id: "each"
               item_index: 2
               state: TASK_STATE_RETRYING
               usage { input_tokens: 10 cost_usd: 0.5 }
             }
           })pb",
      R"pb(task_change {
             task {
               task_id: "each[2]"
               phase_id: "each"
               item_index: 2
               state: TASK_STATE_COMPLETED
               usage { input_tokens: 12 cost_usd: 0.25 }
               output: "two"
             }
           })pb",
      R"pb(task_change {
             task { task_id: "lint" phase_id: "lint" state: TASK_STATE_FAILED error: "exit 3" }
           })pb",
      R"pb(phase_change {
             phase {
               phase_id: "each"
               type: PHASE_TYPE_MAP
               state: TASK_STATE_RUNNING
               items_total: 11
               items_done: 1
               usage { input_tokens: 12 cost_usd: 0.25 }
             }
           })pb",
      R"pb(board_meta { phase: "active" })pb",
      R"pb(child_run_started { child_run_id: "r-2" parent_task_id: "each[10]" })pb",
  };
  for (size_t i = 0; i < events.size(); ++i) {
    const Applied applied = snapshot.Apply(Event(static_cast<int64_t>(i) + 3, events[i]));
    EXPECT_NE(applied, Applied::kNeedsFetch) << events[i];
  }
  // What GetRun answers then: tasks by id length, then bytes; the counters
  // from the tasks; usage adding each result (the retried attempt's too).
  const v1::Run want = MakeRun(R"pb(
    run_id: "r-1"
    kind: FLOW_KIND_TASKFLOW
    status: RUN_STATUS_RUNNING
    last_seq: 12
    tasks_total: 3
    tasks_done: 2
    board_meta: "active"
    child_run_ids: "r-2"
    usage { input_tokens: 22 cost_usd: 0.75 }
    phases { phase_id: "lint" type: PHASE_TYPE_AGENT state: TASK_STATE_RUNNING }
    phases {
      phase_id: "each"
      type: PHASE_TYPE_MAP
      state: TASK_STATE_RUNNING
      items_total: 11
      items_done: 1
      usage { input_tokens: 12 cost_usd: 0.25 }
    }
    tasks { task_id: "lint" phase_id: "lint" state: TASK_STATE_FAILED error: "exit 3" }
    tasks {
      task_id: "each[2]"
      phase_id: "each"
      item_index: 2
      state: TASK_STATE_COMPLETED
      usage { input_tokens: 12 cost_usd: 0.25 }
      output: "two"
    }
    tasks { task_id: "each[10]" phase_id: "each" item_index: 10 state: TASK_STATE_READY }
  )pb");
  const v1::Run& got = snapshot.run();
  EXPECT_EQ(Diff(got, want), "");
}

TEST(RunSnapshot, ManyNewTasksInOneBatch_MergedIntoGetRunOrder) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    last_seq: 1
    tasks { task_id: "b" }
    tasks { task_id: "d" }
    tasks { task_id: "aa" }
  )pb"));
  int64_t seq = 2;
  for (const char* id : {"e", "c", "a", "bb", "f"}) {
    snapshot.Apply(Event(seq++, absl::StrCat("task_change { task { task_id: \"", id, "\" } }")));
  }
  EXPECT_THAT(TaskIds(snapshot.run()), ElementsAre("a", "b", "c", "d", "e", "f", "aa", "bb"));
  // Later tasks go in among the ordered ones, and the index follows them.
  snapshot.Apply(Event(seq++, R"pb(task_change { task { task_id: "ab" } })pb"));
  snapshot.Apply(
      Event(seq++, R"pb(task_change { task { task_id: "c" state: TASK_STATE_COMPLETED } })pb"));
  const v1::Run& run = snapshot.run();
  EXPECT_THAT(TaskIds(run), ElementsAre("a", "b", "c", "d", "e", "f", "aa", "ab", "bb"));
  EXPECT_EQ(run.tasks(2).state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run.tasks_total(), 9);
  EXPECT_EQ(run.tasks_done(), 1);
}

// A submitted board as the scheduler announces it: run_started, then its
// tasks together in tasks_created events, each applied as a task_change.
TEST(RunSnapshot, TasksCreated_AddsEveryTaskInGetRunOrderAndCountsThem) {
  RunSnapshot snapshot;
  snapshot.Reset(
      MakeRun(R"pb(
        run_id: "r-1" kind: FLOW_KIND_BOARD status: RUN_STATUS_RUNNING last_seq: 1
      )pb"));
  EXPECT_EQ(snapshot.Apply(Event(2, R"pb(tasks_created {
                                           tasks { task_id: "t1" state: TASK_STATE_READY }
                                           tasks { task_id: "t2" state: TASK_STATE_DISPATCHED }
                                         })pb")),
            Applied::kChanged);
  EXPECT_EQ(snapshot.Apply(Event(
                3, R"pb(tasks_created { tasks { task_id: "t10" state: TASK_STATE_SKIPPED } })pb")),
            Applied::kChanged);
  EXPECT_EQ(snapshot.Apply(Event(
                4, R"pb(task_change { task { task_id: "t2" state: TASK_STATE_RUNNING } })pb")),
            Applied::kChanged);
  const v1::Run& run = snapshot.run();
  EXPECT_THAT(TaskIds(run), ElementsAre("t1", "t2", "t10"));
  EXPECT_EQ(run.tasks(1).state(), v1::TASK_STATE_RUNNING);
  EXPECT_EQ(run.tasks_total(), 3);
  EXPECT_EQ(run.tasks_done(), 1);
  EXPECT_EQ(run.last_seq(), 4);
}

TEST(RunSnapshot, EventsTheSnapshotAlreadyHas_AreSkipped) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    last_seq: 5
    tasks_total: 1
    tasks_done: 1
    tasks { task_id: "t" state: TASK_STATE_COMPLETED }
  )pb"));
  EXPECT_EQ(snapshot.Apply(
                Event(4, R"pb(task_change { task { task_id: "t" state: TASK_STATE_RUNNING } })pb")),
            Applied::kUnchanged);
  EXPECT_EQ(snapshot.Apply(Event(5, R"pb(run_started { status: RUN_STATUS_RUNNING })pb")),
            Applied::kUnchanged);
  EXPECT_EQ(snapshot.run().tasks(0).state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(snapshot.Apply(Event(6, R"pb(warning { message: "slow" })pb")), Applied::kUnchanged);
  EXPECT_EQ(snapshot.run().last_seq(), 6) << "GetRun's last_seq counts every event";
}

TEST(RunSnapshot, RunFinished_SetsStatusOutputErrorUsageAndTime) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(run_id: "r-1" status: RUN_STATUS_RUNNING last_seq: 1)pb"));
  v1::RunEvent finished = Event(2, R"pb(run_finished {
                                          status: RUN_STATUS_FAILED
                                          output: "partial"
                                          error: "phase 'a' failed: boom"
                                          usage { output_tokens: 7 }
                                        })pb");
  finished.mutable_ts()->set_seconds(1700000009);
  EXPECT_EQ(snapshot.Apply(finished), Applied::kChanged);
  const v1::Run& run = snapshot.run();
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.output(), "partial");
  EXPECT_EQ(run.error(), "phase 'a' failed: boom");
  EXPECT_EQ(run.usage().output_tokens(), 7);
  EXPECT_EQ(run.finished_at().seconds(), 1700000009);
}

// The scheduler deletes the items past a new fan-out's count (a resume with
// fewer items) without an event: the phase's start says how many remain.
TEST(RunSnapshot, FanOutStartingAnew_DropsItemsPastItsCount) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    last_seq: 1
    tasks_total: 4
    tasks_done: 3
    phases { phase_id: "m" type: PHASE_TYPE_MAP state: TASK_STATE_PENDING }
    tasks { task_id: "m[0]" phase_id: "m" item_index: 0 state: TASK_STATE_COMPLETED }
    tasks { task_id: "m[1]" phase_id: "m" item_index: 1 state: TASK_STATE_COMPLETED }
    tasks { task_id: "m[2]" phase_id: "m" item_index: 2 state: TASK_STATE_COMPLETED }
    tasks { task_id: "other" phase_id: "o" item_index: 5 }
  )pb"));
  EXPECT_EQ(snapshot.Apply(Event(2, R"pb(phase_change {
                                           phase {
                                             phase_id: "m"
                                             type: PHASE_TYPE_MAP
                                             state: TASK_STATE_RUNNING
                                             items_total: 1
                                           }
                                         })pb")),
            Applied::kChanged);
  // Progress of the running phase leaves its items alone.
  snapshot.Apply(
      Event(3, R"pb(task_change { task { task_id: "m[3]" phase_id: "m" item_index: 3 } })pb"));
  snapshot.Apply(Event(4, R"pb(phase_change {
                                 phase {
                                   phase_id: "m"
                                   type: PHASE_TYPE_MAP
                                   state: TASK_STATE_RUNNING
                                   items_total: 1
                                   items_done: 1
                                 }
                               })pb"));
  const v1::Run& run = snapshot.run();
  EXPECT_THAT(TaskIds(run), ElementsAre("m[0]", "m[3]", "other"));
  EXPECT_EQ(run.tasks_total(), 3);
  EXPECT_EQ(run.tasks_done(), 1);
  EXPECT_EQ(
      snapshot.Apply(Event(5, R"pb(task_change { task { task_id: "m[0]" phase_id: "m" } })pb")),
      Applied::kChanged)
      << "the index follows the tasks that are left";
  EXPECT_EQ(snapshot.run().tasks(0).state(), v1::TASK_STATE_UNSPECIFIED);
}

TEST(RunSnapshot, EventsItCannotApply_AskForAFetch) {
  RunSnapshot snapshot;
  snapshot.Reset(MakeRun(R"pb(
    run_id: "r-1"
    last_seq: 1
    phases { phase_id: "a" state: TASK_STATE_PENDING }
  )pb"));
  // A resume resets phases and the output without events of its own.
  EXPECT_EQ(snapshot.Apply(Event(2, R"pb(run_started { status: RUN_STATUS_RUNNING })pb")),
            Applied::kNeedsFetch);
  EXPECT_EQ(snapshot.Apply(Event(3, R"pb(phase_change { phase { phase_id: "new" } })pb")),
            Applied::kNeedsFetch);
  // A kind this CLI does not know (no field it can read is set).
  EXPECT_EQ(snapshot.Apply(Event(4, "")), Applied::kNeedsFetch);
  // A task whose output the scheduler cut to --max-event-bytes.
  v1::RunEvent cut = Event(5, R"pb(task_change { task { task_id: "a" } })pb");
  cut.mutable_task_change()->mutable_task()->set_output(absl::StrCat(
      std::string(900, 'x'), "…[cut: 900 of 5000 bytes shown; scheduler flag --max-event-bytes]"));
  EXPECT_EQ(snapshot.Apply(cut), Applied::kNeedsFetch);
  // A long output that was not cut is applied.
  v1::RunEvent whole = Event(6, R"pb(task_change { task { task_id: "a" } })pb");
  whole.mutable_task_change()->mutable_task()->set_output(std::string(5000, 'y'));
  EXPECT_EQ(snapshot.Apply(whole), Applied::kChanged);
  EXPECT_EQ(snapshot.run().tasks(0).output().size(), 5000u);
}

// A board's log, as the scheduler writes it: tasks_created, then changes.
std::vector<v1::RunEvent> BoardLog() {
  return {
      Event(1, R"pb(run_started { status: RUN_STATUS_RUNNING })pb"),
      Event(2, R"pb(tasks_created {
                      tasks { task_id: "t10" state: TASK_STATE_PENDING deps: "t1" }
                      tasks { task_id: "t1" state: TASK_STATE_READY }
                      tasks { task_id: "t2" state: TASK_STATE_READY }
                    })pb"),
      Event(3, R"pb(task_change { task { task_id: "t1" state: TASK_STATE_RUNNING } })pb"),
      Event(4, R"pb(task_change {
                      task {
                        task_id: "t1"
                        state: TASK_STATE_COMPLETED
                        usage { input_tokens: 10 output_tokens: 2 }
                      }
                    })pb"),
      Event(5, R"pb(task_change { task { task_id: "t2" state: TASK_STATE_RUNNING } })pb"),
      Event(6, R"pb(output_delta { task_id: "t2" text: "partial" })pb"),
      // GetRun is answered here (last_seq 6).
      Event(7, R"pb(task_change {
                      task {
                        task_id: "t2"
                        state: TASK_STATE_COMPLETED
                        usage { input_tokens: 5 output_tokens: 1 }
                      }
                    })pb"),
      Event(8, R"pb(task_change { task { task_id: "t10" state: TASK_STATE_READY deps: "t1" } })pb"),
      Event(9, R"pb(task_change {
                      task { task_id: "t10" state: TASK_STATE_FAILED error: "broke" deps: "t1" }
                    })pb"),
      Event(10, R"pb(run_finished { status: RUN_STATUS_FAILED error: "t10 failed" })pb"),
  };
}

// GetRun after BoardLog's first six events, whole.
v1::Run BoardAtSix() {
  return MakeRun(R"pb(
    run_id: "r-1"
    kind: FLOW_KIND_BOARD
    status: RUN_STATUS_RUNNING
    last_seq: 6
    tasks_total: 3
    tasks_done: 1
    usage { input_tokens: 10 output_tokens: 2 }
    tasks {
      task_id: "t1"
      state: TASK_STATE_COMPLETED
      usage { input_tokens: 10 output_tokens: 2 }
    }
    tasks { task_id: "t2" state: TASK_STATE_RUNNING }
    tasks { task_id: "t10" state: TASK_STATE_PENDING deps: "t1" }
  )pb");
}

v1::Run WithoutTasks(v1::Run run) {
  run.clear_tasks();
  return run;
}

TEST(RunSnapshot, WithoutTasks_ReplayFromZero_GivesWhatTheWholeAnswerGives) {
  RunSnapshot whole;
  whole.Reset(BoardAtSix());
  RunSnapshot filled;
  filled.ResetWithoutTasks(WithoutTasks(BoardAtSix()));
  for (const v1::RunEvent& event : BoardLog()) {
    ASSERT_NE(filled.Apply(event), Applied::kNeedsFetch) << event.DebugString();
    whole.Apply(event);
    if (event.seq() >= 6) {
      EXPECT_EQ(Diff(filled.run(), whole.run()), "") << "after seq " << event.seq();
    }
    if (event.seq() == 9) {
      EXPECT_EQ(filled.run().usage().input_tokens(), 15) << "each result counted once";
    }
  }
  EXPECT_THAT(TaskIds(filled.run()), ElementsAre("t1", "t2", "t10"));
  EXPECT_EQ(filled.run().tasks_done(), 3);
}

TEST(RunSnapshot, WithoutTasks_AnswerThatHasTheTasks_IsTakenWhole) {
  // A scheduler older than without_tasks answers with every task.
  RunSnapshot snapshot;
  snapshot.ResetWithoutTasks(BoardAtSix());
  for (const v1::RunEvent& event : BoardLog()) {
    ASSERT_NE(snapshot.Apply(event), Applied::kNeedsFetch) << event.DebugString();
    if (event.seq() == 9) EXPECT_EQ(snapshot.run().usage().input_tokens(), 15);
  }
  EXPECT_EQ(snapshot.run().tasks_done(), 3);
}

TEST(RunSnapshot, WithoutTasks_ReplayThatLacksTasks_AsksForAFetch) {
  // A run stored before tasks_created: GetRun counts tasks no event brings.
  v1::Run summary = WithoutTasks(BoardAtSix());
  summary.set_tasks_total(4);
  RunSnapshot snapshot;
  snapshot.ResetWithoutTasks(summary);
  const std::vector<v1::RunEvent> log = BoardLog();
  for (int i = 0; i < 5; ++i) EXPECT_NE(snapshot.Apply(log[i]), Applied::kNeedsFetch);
  EXPECT_EQ(snapshot.Apply(log[5]), Applied::kNeedsFetch) << "the last event of the replay";
}

TEST(RunSnapshot, WithoutTasks_ResumedRun_AsksForAFetch) {
  // A resume deletes tasks without an event: the replay cannot rebuild them.
  RunSnapshot snapshot;
  snapshot.ResetWithoutTasks(
      MakeRun(R"pb(
        run_id: "r-1" kind: FLOW_KIND_BOARD last_seq: 3 tasks_total: 1
      )pb"));
  EXPECT_EQ(snapshot.Apply(Event(1, R"pb(run_started { status: RUN_STATUS_RUNNING })pb")),
            Applied::kUnchanged);
  EXPECT_EQ(snapshot.Apply(Event(2, R"pb(tasks_created { tasks { task_id: "a" } })pb")),
            Applied::kChanged);
  EXPECT_EQ(snapshot.Apply(Event(3, R"pb(run_started { status: RUN_STATUS_RUNNING })pb")),
            Applied::kNeedsFetch);
}

TEST(RunSnapshot, RefreshWithoutTasks_KeepsTheTasksTakesTheRest) {
  RunSnapshot snapshot;
  snapshot.ResetWithoutTasks(WithoutTasks(BoardAtSix()));
  for (const v1::RunEvent& event : BoardLog()) snapshot.Apply(event);
  v1::Run finished = MakeRun(R"pb(
    run_id: "r-1"
    kind: FLOW_KIND_BOARD
    status: RUN_STATUS_FAILED
    error: "t10 failed"
    last_seq: 10
    tasks_total: 3
    tasks_done: 3
    usage { input_tokens: 15 output_tokens: 3 }
    billed { input_tokens: 40 output_tokens: 9 }
  )pb");
  v1::Run short_one = finished;
  short_one.set_tasks_total(4);
  EXPECT_FALSE(snapshot.RefreshWithoutTasks(short_one)) << "a task the snapshot lacks";
  EXPECT_FALSE(snapshot.run().has_billed()) << "a refused answer changes nothing";
  ASSERT_TRUE(snapshot.RefreshWithoutTasks(finished));
  EXPECT_EQ(snapshot.run().billed().input_tokens(), 40);
  EXPECT_THAT(TaskIds(snapshot.run()), ElementsAre("t1", "t2", "t10"));
  EXPECT_EQ(snapshot.run().tasks(2).error(), "broke");
  // The tasks are still indexed: a later event changes the one it names.
  EXPECT_EQ(snapshot.Apply(Event(
                11, R"pb(task_change { task { task_id: "t2" state: TASK_STATE_FAILED } })pb")),
            Applied::kChanged);
  EXPECT_EQ(snapshot.run().tasks(1).state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(snapshot.run().tasks_size(), 3);
}

TEST(RunSnapshot, TakeChangedTasks_EachChangedTaskOnceInRunOrder) {
  v1::Run run = BoardAtSix();
  for (int i = 11; i < 30; ++i) {
    v1::Task& task = *run.add_tasks();
    task.set_task_id(absl::StrCat("t", i));
    task.set_state(v1::TASK_STATE_READY);
  }
  run.set_tasks_total(run.tasks_size());
  RunSnapshot snapshot;
  snapshot.Reset(run);
  EXPECT_EQ(snapshot.TakeChangedTasks(), std::nullopt) << "after a Reset any task may differ";
  std::optional<std::vector<const v1::Task*>> none = snapshot.TakeChangedTasks();
  ASSERT_TRUE(none.has_value());
  EXPECT_THAT(*none, ::testing::IsEmpty());
  const std::vector<v1::RunEvent> log = BoardLog();
  for (int i = 6; i < 9; ++i) snapshot.Apply(log[i]);  // t2, t10, t10
  snapshot.Apply(Event(11, R"pb(tasks_created { tasks { task_id: "t3" } })pb"));
  std::optional<std::vector<const v1::Task*>> changed = snapshot.TakeChangedTasks();
  ASSERT_TRUE(changed.has_value());
  std::vector<std::string> ids;
  for (const v1::Task* task : *changed) ids.push_back(task->task_id());
  EXPECT_THAT(ids, ElementsAre("t2", "t3", "t10"));
  EXPECT_EQ((*changed)[2], &snapshot.run().tasks(3)) << "the snapshot's own task";

  // A quarter of the run or more: looking at every task is as cheap.
  for (int i = 11; i < 17; ++i) {
    snapshot.Apply(Event(i + 1, absl::StrCat(R"pb(task_change { task { task_id: "t)pb", i,
                                             R"pb(" state: TASK_STATE_RUNNING } })pb")));
  }
  EXPECT_EQ(snapshot.TakeChangedTasks(), std::nullopt);
}

}  // namespace
}  // namespace taskboard::cli
