// Crash tests with real processes: kill -9 the scheduler during a 500-task
// run, several times, and a worker in the middle of its tasks. Runs must
// complete, each task's result must be committed exactly once, and the
// event log must have no gaps. Killing the scheduler costs no task an
// attempt: each runs once, as attempt 1, counted from the agent's own log.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/chaos_helpers.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::Cluster;
using testing::ClusterOptions;
using testing::Executions;
using testing::ExpectCleanEventLog;
using testing::IsOk;
using testing::LoggingAgents;

// A board of `count` independent tasks, each a short sleep on a command agent.
std::string Board(int count, const std::string& sleep) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)},
                     {"agent", i % 2 == 0 ? "echo" : "helper"},
                     {"task", absl::StrCat("sleep ", sleep, " done ", i)}});
  }
  Json flow = {{"name", "crash-board"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}};
  return DumpJson(flow);
}

TEST(CrashTest, SchedulerKilledThreeTimesDuringA500TaskRun_RunCompletesExactlyOnce) {
  testing::TempDir agents;
  const std::filesystem::path log = agents.path() / "executions.log";
  ClusterOptions options;
  options.slots = 8;
  options.agents_dir = LoggingAgents(agents.path(), {{"echo", log}, {"helper", log}});
  // Longer than a worker's reconnect backoff cap (5 s), as the default 30 s
  // is: a lease recovered at a restart must outlast its worker's return.
  options.lease_timeout_ms = 10'000;
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(Board(500, "0.02"));
  ASSERT_THAT(run_id.status(), IsOk());

  for (int done_before_kill : {60, 200, 340}) {
    absl::StatusOr<v1::Run> progress = cluster.WaitUntil(
        *run_id, [&](const v1::Run& run) { return run.tasks_done() >= done_before_kill; });
    ASSERT_THAT(progress.status(), IsOk());
    ASSERT_NE(progress->status(), v1::RUN_STATUS_COMPLETED)
        << "the run finished before the kill at " << done_before_kill;
    cluster.KillScheduler(SIGKILL);
    ASSERT_THAT(cluster.StartScheduler(), IsOk());
  }

  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id, 120'000);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  EXPECT_EQ(run->tasks_done(), 500);
  // No worker died: results finished while the scheduler was down were
  // kept and accepted, assignments it never sent cost nothing, so every
  // task ran once.
  const std::map<std::string, int> executions = Executions(log);
  int retried = 0;
  for (const v1::Task& task : run->tasks()) {
    EXPECT_EQ(task.state(), v1::TASK_STATE_COMPLETED) << task.task_id() << ": " << task.error();
    EXPECT_EQ(task.output(), absl::StrCat("done ", task.task_id().substr(1), "\n"));
    auto ran = executions.find(task.task_id());
    EXPECT_EQ(ran == executions.end() ? 0 : ran->second, 1) << task.task_id();
    if (task.attempt() != 1) ++retried;
  }
  EXPECT_EQ(retried, 0) << "tasks past attempt 1 after scheduler kills\n" << cluster.Logs();
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster.WatchToEnd(*run_id);
  ASSERT_THAT(events.status(), IsOk());
  ExpectCleanEventLog(*events, 500);
}

TEST(CrashTest, WorkerKilledMidTask_ItsTasksAreRedispatchedAfterTheLease) {
  ClusterOptions options;
  options.slots = 2;
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(Board(8, "1"));
  ASSERT_THAT(run_id.status(), IsOk());

  absl::StatusOr<v1::Run> running = cluster.WaitUntil(*run_id, [](const v1::Run& run) {
    for (const v1::Task& task : run.tasks()) {
      if (task.worker_id() == "worker-0" && task.state() == v1::TASK_STATE_RUNNING) return true;
    }
    return false;
  });
  ASSERT_THAT(running.status(), IsOk());
  std::vector<std::string> lost;
  for (const v1::Task& task : running->tasks()) {
    if (task.worker_id() == "worker-0" && task.state() == v1::TASK_STATE_RUNNING) {
      lost.push_back(task.task_id());
    }
  }
  cluster.KillWorker(0, SIGKILL);

  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  for (const v1::Task& task : run->tasks()) {
    if (std::find(lost.begin(), lost.end(), task.task_id()) == lost.end()) continue;
    EXPECT_EQ(task.worker_id(), "worker-1") << task.task_id();
    EXPECT_EQ(task.attempt(), 2) << task.task_id();
  }
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster.WatchToEnd(*run_id);
  ASSERT_THAT(events.status(), IsOk());
  ExpectCleanEventLog(*events, 8);
}

// A power loss under --durability wal (simulated: the scheduler is killed and
// the machine's boot id changes) may have cost the store its last writes:
// the restarted scheduler skips the running run's event numbers ahead, so
// none a watcher saw before is issued again, and the run still completes.
TEST(CrashTest, PowerLossWithWal_EventNumbersSkipAheadAndTheRunCompletes) {
  ClusterOptions options;
  options.durability = "wal";
  options.lease_timeout_ms = 10'000;
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(Board(20, "0.3"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> progress = cluster.WaitUntil(
      *run_id, [](const v1::Run& run) { return run.tasks_done() >= 4; });
  ASSERT_THAT(progress.status(), IsOk());
  const int64_t seen = progress->last_seq();
  cluster.KillScheduler(SIGKILL);
  // As if the machine had restarted since the scheduler opened its store.
  std::ofstream(cluster.dir() / "data" / "taskboard-open") << "another-boot wal\n";
  ASSERT_THAT(cluster.StartScheduler(), IsOk());

  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster.WatchToEnd(*run_id);
  ASSERT_THAT(events.status(), IsOk());
  bool skipped = false;
  for (size_t i = 1; i < events->size(); ++i) {
    const int64_t step = (*events)[i].seq() - (*events)[i - 1].seq();
    ASSERT_GE(step, 1) << "a number was issued twice";
    if (step > 1) {
      skipped = true;
      EXPECT_GE((*events)[i].seq(), seen + 1'000'000);
    }
  }
  EXPECT_TRUE(skipped) << "no event number skipped ahead after the simulated power loss";
}

}  // namespace
}  // namespace taskboard
