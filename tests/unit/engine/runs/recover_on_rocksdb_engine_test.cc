// Recovery at start over RocksDB: a restarted scheduler dispatches and times
// out exactly what it would have without the restart, and keeps a lease its
// worker still holds.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/runs/board_runs.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::SubmitBoards;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::SizeIs;

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
