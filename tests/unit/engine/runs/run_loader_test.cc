// RunLoader reads the active runs back on loader threads (run_loader.h) for
// the thread that owns the engine: the runs come back in the order asked, and
// a run that cannot be read fails alone. And a run's tasks load in the
// store's order (RunState::LoadTasks).

#include "scheduler/engine/runs/run_loader.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/runs/board_runs.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::SubmitBoards;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::SizeIs;

RunLoader::Options LoaderOptions(store::Store& store, int threads) {
  RunLoader::Options options;
  options.store = &store;
  options.threads = threads;
  return options;
}

TEST(RunLoader, ManyThreads_HandsRunsOutInTheOrderAsked) {
  EngineHarness h;
  std::vector<std::string> ids = SubmitBoards(h, 7, 3);
  std::vector<std::string> asked(ids.rbegin(), ids.rend());
  RunLoader loader(LoaderOptions(h.store(), 3), asked);
  std::vector<std::string> got;
  while (std::optional<LoadedRun> run = loader.Next()) {
    ASSERT_THAT(run->status, IsOk());
    EXPECT_EQ(run->state->run_id(), run->run_id);
    EXPECT_THAT(run->state->tasks(), SizeIs(3));
    EXPECT_THAT(run->spec.board().tasks(), SizeIs(3));
    EXPECT_NE(run->driver, nullptr);
    got.push_back(run->run_id);
  }
  EXPECT_EQ(got, asked);
  EXPECT_FALSE(loader.Next().has_value());
}

TEST(RunLoader, CorruptTaskRecord_FailsThatRunAlone) {
  EngineHarness h;
  std::vector<std::string> ids = SubmitBoards(h, 4, 2);
  store::WriteBatch batch;
  batch.Put(store::Column::kTasks, store::keys::Task(ids[1], "t1"), "\xff\xff not a record");
  ASSERT_THAT(h.store().Write(batch), IsOk());
  RunLoader loader(LoaderOptions(h.store(), 2), ids);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<LoadedRun> run = loader.Next();
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->run_id, ids[i]);
    if (i == 1) {
      EXPECT_THAT(run->status, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("task 't1'")));
      EXPECT_EQ(run->state, nullptr);
    } else {
      EXPECT_THAT(run->status, IsOk());
    }
  }
}

TEST(RunLoader, UnknownRun_NotFound) {
  EngineHarness h;
  RunLoader loader(LoaderOptions(h.store(), 2), {"run-nope"});
  std::optional<LoadedRun> run = loader.Next();
  ASSERT_TRUE(run.has_value());
  EXPECT_THAT(run->status, StatusIs(absl::StatusCode::kNotFound));
}

TEST(RunLoader, NoRuns_NothingToHandOut) {
  EngineHarness h;
  RunLoader loader(LoaderOptions(h.store(), 2), {});
  EXPECT_FALSE(loader.Next().has_value());
}

TEST(RunLoader, DestroyedBeforeEveryRunIsTaken_StopsItsThreads) {
  EngineHarness h;
  std::vector<std::string> ids = SubmitBoards(h, 12, 2);
  RunLoader loader(LoaderOptions(h.store(), 2), ids);
  ASSERT_TRUE(loader.Next().has_value());
  // The destructor joins the loaders, which wait on the window: the test
  // ends instead of hanging.
}

RunState::StoredTask Task(const std::string& id, v1::TaskState state) {
  store::TaskRecord task;
  task.mutable_task()->set_task_id(id);
  task.mutable_task()->set_state(state);
  std::string bytes = task.SerializeAsString();
  return {std::move(task), std::move(bytes)};
}

// The store hands a run's tasks over shortest id first ("t2" before "t10").
TEST(RunState, LoadTasks_InStoreOrder_FindsEveryTaskAndCountsFinished) {
  RunState run(store::RunRecord{});
  std::vector<RunState::StoredTask> tasks;
  tasks.push_back(Task("t1", v1::TASK_STATE_READY));
  tasks.push_back(Task("t2", v1::TASK_STATE_COMPLETED));
  tasks.push_back(Task("t10", v1::TASK_STATE_READY));
  tasks.push_back(Task("t11", v1::TASK_STATE_FAILED));
  run.LoadTasks(std::move(tasks));
  run.LoadTask(Task("t0", v1::TASK_STATE_READY));  // before the others: searched for
  std::vector<std::string> ids;
  for (const auto& [id, task] : run.tasks()) ids.push_back(id);
  EXPECT_THAT(ids, ElementsAreArray({"t0", "t1", "t10", "t11", "t2"}));
  for (const std::string& id : ids) {
    ASSERT_NE(run.FindTask(id), nullptr) << id;
    EXPECT_EQ(run.FindTask(id)->task().task_id(), id);
  }
  run.MutableTask("t1");  // counts the run's tasks on the next commit
  run.TakeChanges();
  EXPECT_EQ(run.record().run().tasks_total(), 5);
  EXPECT_EQ(run.record().run().tasks_done(), 2);
}

}  // namespace
}  // namespace taskboard::engine
