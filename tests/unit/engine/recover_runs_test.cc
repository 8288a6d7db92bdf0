// Recovery at start reads the active runs back on loader threads
// (run_loader.h) and installs them on the thread that owns the engine: the
// runs come back in the order asked, a run that cannot be read fails alone,
// and a restart over RocksDB dispatches and times out exactly what the
// scheduler would have without the restart.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/run_loader.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAreArray;
using testing::EngineHarness;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using testing::TestWorker;

// A board of `tasks` coder tasks; every third one has a higher priority, so
// the dispatch order interleaves runs.
std::string Board(int tasks) {
  std::string list;
  for (int i = 0; i < tasks; ++i) {
    absl::StrAppend(&list, i == 0 ? "" : ",", R"({"id": "t)", i,
                    R"(", "agent": "coder", "task": "x", "priority": )", i % 3 == 0 ? 1 : 0, "}");
  }
  return absl::StrCat(R"({"name": "b", "kind": "board", "board": {"tasks": [)", list, "]}}");
}

std::vector<std::string> SubmitBoards(EngineHarness& h, int runs, int tasks) {
  std::vector<std::string> ids;
  for (int i = 0; i < runs; ++i) {
    ids.push_back(h.Submit(Board(tasks)));
    h.Advance(1);  // each run's tasks become ready a millisecond later
  }
  return ids;
}

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

// The runs' tasks in the order a worker with a slot for each is sent them,
// as (the run's place in `runs`, task id): run ids differ between harnesses.
std::vector<std::pair<int, std::string>> DispatchOrder(EngineHarness& h,
                                                       const std::vector<std::string>& runs,
                                                       int slots) {
  std::map<std::string, int> place;
  for (size_t i = 0; i < runs.size(); ++i) place[runs[i]] = static_cast<int>(i);
  TestWorker worker = h.Connect("w1", {"coder"}, slots);
  std::vector<std::pair<int, std::string>> order;
  for (const v1::Assignment& assignment : h.TakeAssignments(worker)) {
    order.emplace_back(place.at(assignment.run_id()), assignment.task_id());
  }
  return order;
}

class RecoverOnRocksDb : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::Store>> opened = store::OpenRocksDbStore(
        {.path = dir_.path() / "db", .durability = store::Durability::kWal});
    ASSERT_THAT(opened.status(), IsOk());
    rocks_ = *std::move(opened);
  }

  // A harness whose engine recovers on `threads` loader threads from RocksDB.
  std::unique_ptr<EngineHarness> RocksHarness(int threads) {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.recovery_threads = threads;
    auto h = std::make_unique<EngineHarness>(options);
    h->store_override = rocks_.get();
    h->Restart();
    return h;
  }

  // What a client reads from the store the engine recovered from.
  v1::Task ReadTaskView(const std::string& run_id, const std::string& task_id) {
    absl::StatusOr<v1::GetTaskResponse> task = ReadTask(*rocks_, run_id, task_id);
    EXPECT_THAT(task.status(), IsOk());
    return task.ok() ? task->task() : v1::Task();
  }
  v1::RunStatus RunStatusOf(const std::string& run_id) {
    absl::StatusOr<v1::Run> run = ReadRun(*rocks_, run_id, /*with_tasks=*/false);
    EXPECT_THAT(run.status(), IsOk());
    return run.ok() ? run->status() : v1::RUN_STATUS_UNSPECIFIED;
  }

  taskboard::testing::TempDir dir_;
  std::unique_ptr<store::Store> rocks_;
};

TEST_F(RecoverOnRocksDb, ManyRuns_DispatchOrderAsWithoutTheRestart) {
  constexpr int kRuns = 9;
  constexpr int kTasks = 5;
  EngineHarness reference;
  std::vector<std::string> reference_runs = SubmitBoards(reference, kRuns, kTasks);
  std::unique_ptr<EngineHarness> h = RocksHarness(3);
  std::vector<std::string> runs = SubmitBoards(*h, kRuns, kTasks);

  h->Restart();
  std::vector<std::pair<int, std::string>> recovered = DispatchOrder(*h, runs, kRuns * kTasks);
  ASSERT_THAT(recovered, SizeIs(kRuns * kTasks));
  EXPECT_EQ(recovered, DispatchOrder(reference, reference_runs, kRuns * kTasks));
}

TEST_F(RecoverOnRocksDb, ManyRuns_EveryReadyTaskKeepsItsSchedulingTimeout) {
  std::unique_ptr<EngineHarness> h = RocksHarness(2);
  std::vector<std::string> runs = SubmitBoards(*h, 6, 3);
  h->Restart();
  h->Advance(59'999);  // counted from the restart: no worker had a chance
  for (const std::string& run : runs) {
    EXPECT_EQ(ReadTaskView(run, "t2").state(), v1::TASK_STATE_READY);
  }
  h->Advance(1);
  for (const std::string& run : runs) {
    for (const char* task : {"t0", "t1", "t2"}) {
      v1::Task view = ReadTaskView(run, task);
      EXPECT_EQ(view.state(), v1::TASK_STATE_FAILED) << run << " " << task;
      EXPECT_THAT(view.error(), HasSubstr("no worker offers agent 'coder'"));
    }
    EXPECT_EQ(RunStatusOf(run), v1::RUN_STATUS_FAILED);
  }
}

TEST_F(RecoverOnRocksDb, DispatchedTask_WorkerReconnectsHoldingTheLease_KeepsIt) {
  std::unique_ptr<EngineHarness> h = RocksHarness(2);
  std::vector<std::string> runs = SubmitBoards(*h, 4, 2);
  TestWorker worker = h->Connect("w1", {"coder"}, /*slots=*/1);
  v1::Assignment held_assignment = h->OnlyAssignment(worker);
  h->Started(worker, held_assignment);

  h->Restart();
  v1::HeldTask held;
  held.set_task_id(held_assignment.task_id());
  held.set_lease_id(held_assignment.lease_id());
  TestWorker again = h->Connect("w1", {"coder"}, /*slots=*/0, {held});
  std::vector<v1::ConnectResponse> messages = again.channel->Take();
  ASSERT_THAT(messages, SizeIs(1));
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), ::testing::IsEmpty());
  h->Result(again, held_assignment, true, "survived the restart");
  ASSERT_TRUE(EngineHarness::Acks(again.channel->Take()).at(0).accepted());
  EXPECT_EQ(ReadTaskView(held_assignment.run_id(), held_assignment.task_id()).output(),
            "survived the restart");
}

}  // namespace
}  // namespace taskboard::engine
