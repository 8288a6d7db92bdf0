// A run keeps the tasks that wait (pending, ready, retrying) or are over as
// their serialized records, and the ones the engine works on parsed
// (RunState::TaskSlot): reading a kept task gives back the record as it was,
// a change made before Freeze is kept, and records handed out for running
// tasks stay valid across it.

#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/run_state.h"

namespace taskboard::engine {
namespace {

using google::protobuf::util::MessageDifferencer;

store::TaskRecord Task(const std::string& id, v1::TaskState state) {
  store::TaskRecord task;
  task.mutable_task()->set_task_id(id);
  task.mutable_task()->set_run_id("run-1");
  task.mutable_task()->set_state(state);
  task.mutable_task()->set_agent("coder");
  task.mutable_assignment()->set_prompt("Review " + id);
  task.set_order(7);
  return task;
}

// Puts the tasks and commits them as the engine does: TakeChanges, the
// bytes it writes, then Freeze.
void Commit(RunState& run) {
  RunState::Changes changes = run.TakeChanges();
  for (const std::string& id : changes.tasks) {
    run.Committed(id, run.FindTask(id)->SerializeAsString());
  }
  run.Freeze();
}

TEST(RunStateFreeze, WaitingAndFinishedTasks_KeptSerialized_RunningOnesParsed) {
  RunState run(store::RunRecord{});
  for (auto [id, state] :
       std::vector<std::pair<std::string, v1::TaskState>>{{"pending", v1::TASK_STATE_PENDING},
                                                          {"ready", v1::TASK_STATE_READY},
                                                          {"retrying", v1::TASK_STATE_RETRYING},
                                                          {"done", v1::TASK_STATE_COMPLETED},
                                                          {"dispatched", v1::TASK_STATE_DISPATCHED},
                                                          {"running", v1::TASK_STATE_RUNNING}}) {
    run.PutTask(Task(id, state));
  }
  EXPECT_EQ(run.ParsedTaskCount(), 6u);
  Commit(run);
  EXPECT_EQ(run.ParsedTaskCount(), 2u);  // dispatched and running

  // A kept task reads back as it was put, and stays parsed until Freeze.
  const store::TaskRecord* ready = run.FindTask("ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(*ready, Task("ready", v1::TASK_STATE_READY)));
  EXPECT_EQ(run.ParsedTaskCount(), 3u);
  run.Freeze();
  EXPECT_EQ(run.ParsedTaskCount(), 2u);
}

TEST(RunStateFreeze, IdsAndStates_ReadWithoutParsing) {
  RunState run(store::RunRecord{});
  run.PutTask(Task("a", v1::TASK_STATE_READY));
  run.PutTask(Task("b", v1::TASK_STATE_COMPLETED));
  Commit(run);
  ASSERT_EQ(run.ParsedTaskCount(), 0u);
  std::vector<std::pair<std::string, v1::TaskState>> seen;
  const RunState::TaskList tasks = run.tasks();
  for (auto it = tasks.begin(); it != tasks.end(); ++it) seen.emplace_back(it.id(), it.state());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, v1::TaskState>>{
                      {"a", v1::TASK_STATE_READY}, {"b", v1::TASK_STATE_COMPLETED}}));
  EXPECT_TRUE(run.HasTask("a"));
  EXPECT_EQ(run.ParsedTaskCount(), 0u);
  // Visiting the records parses them.
  for (const auto& [id, task] : run.tasks()) EXPECT_EQ(task.task().task_id(), id);
  EXPECT_EQ(run.ParsedTaskCount(), 2u);
}

TEST(RunStateFreeze, ChangeToAKeptTask_SurvivesFreezeWithoutTheCommitsBytes) {
  RunState run(store::RunRecord{});
  run.PutTask(Task("a", v1::TASK_STATE_READY));
  Commit(run);
  run.MutableTask("a").set_priority(5);
  // No Committed: Freeze serializes the changed record itself.
  run.Freeze();
  ASSERT_EQ(run.ParsedTaskCount(), 0u);
  EXPECT_EQ(run.FindTask("a")->priority(), 5);
}

TEST(RunStateFreeze, ChangedAfterTheCommit_TheNewRecordIsKeptNotTheCommittedOne) {
  RunState run(store::RunRecord{});
  run.PutTask(Task("a", v1::TASK_STATE_READY));
  RunState::Changes changes = run.TakeChanges();
  run.Committed("a", run.FindTask("a")->SerializeAsString());
  run.MutableTask("a").set_priority(9);  // after the bytes were taken
  run.Freeze();
  EXPECT_EQ(run.FindTask("a")->priority(), 9);
}

TEST(RunStateFreeze, RecordOfARunningTask_StaysWhereItWasAcrossFreeze) {
  RunState run(store::RunRecord{});
  run.PutTask(Task("a", v1::TASK_STATE_RUNNING));
  const store::TaskRecord* before = run.FindTask("a");
  Commit(run);
  EXPECT_EQ(run.FindTask("a"), before);
  // Replacing a parsed task keeps its record where it is too.
  store::TaskRecord& replaced = run.PutTask(Task("a", v1::TASK_STATE_COMPLETED));
  EXPECT_EQ(&replaced, before);
  Commit(run);
  EXPECT_EQ(run.ParsedTaskCount(), 0u);
  EXPECT_EQ(run.FindTask("a")->task().state(), v1::TASK_STATE_COMPLETED);
}

TEST(RunStateFreeze, RemovedTask_IsGoneAndFreezeSkipsIt) {
  RunState run(store::RunRecord{});
  run.PutTask(Task("a", v1::TASK_STATE_READY));
  run.PutTask(Task("b", v1::TASK_STATE_READY));
  Commit(run);
  run.FindTask("a");  // parsed, listed for Freeze
  run.RemoveTask("a");
  run.Freeze();
  EXPECT_FALSE(run.HasTask("a"));
  EXPECT_EQ(run.FindTask("a"), nullptr);
  EXPECT_EQ(run.tasks().size(), 1u);
  EXPECT_EQ(run.ParsedTaskCount(), 0u);
  // Put again under the same id: a new task.
  run.PutTask(Task("a", v1::TASK_STATE_PENDING));
  Commit(run);
  EXPECT_EQ(run.FindTask("a")->task().state(), v1::TASK_STATE_PENDING);
}

TEST(RunStateFreeze, LoadedTasks_KeptSerializedAfterFreeze_AndCounted) {
  RunState run(store::RunRecord{});
  std::vector<RunState::StoredTask> stored;
  for (auto [id, state] :
       std::vector<std::pair<std::string, v1::TaskState>>{{"a", v1::TASK_STATE_READY},
                                                          {"b", v1::TASK_STATE_COMPLETED},
                                                          {"c", v1::TASK_STATE_RUNNING}}) {
    store::TaskRecord task = Task(id, state);
    std::string bytes = task.SerializeAsString();
    stored.push_back({std::move(task), std::move(bytes)});
  }
  run.LoadTasks(std::move(stored));
  EXPECT_EQ(run.ParsedTaskCount(), 3u);
  run.Freeze();
  EXPECT_EQ(run.ParsedTaskCount(), 1u);
  EXPECT_TRUE(MessageDifferencer::Equals(*run.FindTask("b"), Task("b", v1::TASK_STATE_COMPLETED)));
  run.MutableTask("c");
  run.TakeChanges();
  EXPECT_EQ(run.record().run().tasks_done(), 1);
  EXPECT_EQ(run.record().run().tasks_total(), 3);
}

}  // namespace
}  // namespace taskboard::engine
