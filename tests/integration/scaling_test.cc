// Horizontal scaling across real processes: a 2,000-task board runs on one
// worker, then on four (throughput must grow with the workers, since slots
// and not the scheduler bound it), then three workers are drained back to
// one while the board keeps running. Every task must complete exactly once:
// no task lost, none committed twice, none handed back or retried because
// its worker was drained, and the drained workers exit 0.

#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/testing/cluster.h"
#include "tests/testing/event_tasks.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::Cluster;
using testing::IsOk;

constexpr int kTasks = 400;
constexpr int kSlots = 4;
constexpr int kWorkers = 4;
// Each task is the echo agent's `sleep`: its reaper, a shell and a `sleep`
// process, so a task holds its slot for ~400 ms of wall time while costing
// the machine some 20-25 ms of CPU (three execs on a slow 2-core VM). Four
// workers x four slots then need under half a core, so on a 2-core machine
// slots, not CPU, bound the throughput. (At 50 ms a task, a slow VM was
// CPU-bound at two workers and measured 1.4-1.9x whatever the scheduler did.)
constexpr char kTaskSeconds[] = "0.4";
// How long each throughput window lasts: 30 tasks at one worker, 120 at four.
constexpr absl::Duration kWindow = absl::Seconds(3);

// Four times the slots would ideally give 4x; this machine (2 cores) measured
// 3.6-3.8x at 50 ms a task, and 3.8x at 400 ms on a slower VM (2026-11-29).
// 2.5x leaves that much room for a loaded CI machine, while a scheduler that
// does not use the new workers (1x), or only half of them (2x), fails.
constexpr double kMinSpeedup = 2.5;

std::string BoardOf(int tasks) {
  std::string text = "name: scaling\nkind: board\nboard:\n  tasks:\n";
  for (int i = 0; i < tasks; ++i) {
    absl::StrAppend(&text, "    - id: t", i, "\n      agent: echo\n      task: sleep ",
                    kTaskSeconds, " t", i, "\n");
  }
  return text;
}

absl::StatusOr<v1::Run> GetRun(Cluster& cluster, const std::string& run_id) {
  return cluster.WaitUntil(run_id, [](const v1::Run&) { return true; });
}

struct Window {
  double tasks_per_second = 0;
  int done_at_end = 0;
};

// Tasks finished per second over kWindow, from GetRun's terminal-task count at
// both ends. The wait is the measurement itself, not synchronisation.
absl::StatusOr<Window> MeasureThroughput(Cluster& cluster, const std::string& run_id) {
  absl::StatusOr<v1::Run> before = GetRun(cluster, run_id);
  if (!before.ok()) return before.status();
  const absl::Time start = absl::Now();
  absl::SleepFor(kWindow);
  absl::StatusOr<v1::Run> after = GetRun(cluster, run_id);
  if (!after.ok()) return after.status();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return Window{(after->tasks_done() - before->tasks_done()) / seconds, after->tasks_done()};
}

// Drains `worker_id`; how many tasks it was running when asked.
absl::StatusOr<int> Drain(Cluster& cluster, const std::string& worker_id) {
  v1::DrainWorkerRequest request;
  request.set_worker_id(worker_id);
  // Far longer than a task: a drained worker finishes what it holds.
  request.set_grace_ms(30'000);
  request.set_reason("scaling test: scale in");
  v1::DrainWorkerResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Status status = cluster.client().DrainWorker(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat("DrainWorker ", worker_id, ": ", status.error_message()));
  }
  return response.worker().running();
}

// What the event log says happened to one task.
struct TaskHistory {
  int dispatched = 0;  // task_change (or tasks_created) entries in DISPATCHED
  int retrying = 0;
  int terminal = 0;  // TaskChange events in a terminal state
  v1::TaskState last = v1::TASK_STATE_UNSPECIFIED;
};

std::map<std::string, TaskHistory> Histories(const std::vector<v1::RunEvent>& events) {
  std::map<std::string, TaskHistory> histories;
  for (const v1::RunEvent& event : events) {
    for (const v1::Task* task : testing::TasksIn(event)) {
      TaskHistory& history = histories[task->task_id()];
      if (task->state() == v1::TASK_STATE_DISPATCHED) ++history.dispatched;
      if (task->state() == v1::TASK_STATE_RETRYING) ++history.retrying;
      if (engine::IsTerminal(task->state())) ++history.terminal;
      history.last = task->state();
    }
  }
  return histories;
}

TEST(ScalingTest, Board_OneToFourWorkersAndDrainedBack_FasterAndEveryTaskExactlyOnce) {
  testing::ClusterOptions options;
  options.workers = kWorkers;
  options.slots = kSlots;
  Cluster cluster(options);
  ASSERT_THAT(cluster.StartScheduler(), IsOk());
  ASSERT_THAT(cluster.StartWorker(0), IsOk());

  absl::StatusOr<std::string> run_id = cluster.Submit(BoardOf(kTasks));
  ASSERT_THAT(run_id, IsOk()) << cluster.Logs();
  // Warmed up: the worker is connected and its slots have turned over once.
  ASSERT_THAT(
      cluster.WaitUntil(*run_id, [](const v1::Run& run) { return run.tasks_done() >= 2 * kSlots; }),
      IsOk());
  absl::StatusOr<Window> one = MeasureThroughput(cluster, *run_id);
  ASSERT_THAT(one, IsOk());

  for (int i = 1; i < kWorkers; ++i) ASSERT_THAT(cluster.StartWorker(i), IsOk());
  // Every worker connected and running tasks before the window opens.
  ASSERT_THAT(cluster.WaitForWorkers([](const v1::ListWorkersResponse& list) {
    if (list.workers_size() != kWorkers) return false;
    for (const v1::WorkerInfo& worker : list.workers()) {
      if (worker.running() == 0) return false;
    }
    return true;
  }),
              IsOk());
  absl::StatusOr<Window> four = MeasureThroughput(cluster, *run_id);
  ASSERT_THAT(four, IsOk());
  std::cout << "[ scaling  ] 1 worker: " << one->tasks_per_second << " tasks/s, " << kWorkers
            << " workers: " << four->tasks_per_second << " tasks/s ("
            << four->tasks_per_second / one->tasks_per_second << "x)\n";
  ::testing::Test::RecordProperty("tasks_per_second_1_worker",
                                  static_cast<int>(one->tasks_per_second));
  ::testing::Test::RecordProperty("tasks_per_second_4_workers",
                                  static_cast<int>(four->tasks_per_second));
  // The board must still have been running at the end of both windows, or
  // the second one measured an emptying queue.
  ASSERT_LT(four->done_at_end, kTasks - kWorkers * kSlots)
      << "the board finished inside the measurement; make it bigger";
  EXPECT_GE(four->tasks_per_second, kMinSpeedup * one->tasks_per_second)
      << "1 worker: " << one->tasks_per_second << " tasks/s, " << kWorkers
      << " workers: " << four->tasks_per_second << " tasks/s\n"
      << cluster.Logs();

  // Scale back in to one worker while the board keeps going.
  int running_when_drained = 0;
  for (int i = 1; i < kWorkers; ++i) {
    absl::StatusOr<int> running = Drain(cluster, absl::StrCat("worker-", i));
    ASSERT_THAT(running, IsOk());
    running_when_drained += *running;
  }
  // The drain had work in hand to finish (or wrongly hand back).
  EXPECT_GT(running_when_drained, 0);
  for (int i = 1; i < kWorkers; ++i) {
    EXPECT_EQ(cluster.worker(i)->WaitFor(30'000), 0)
        << "drained worker-" << i << " did not exit cleanly\n"
        << cluster.Logs();
  }
  ASSERT_THAT(cluster.WaitForWorkers([](const v1::ListWorkersResponse& list) {
    return list.workers_size() == 1 && list.workers(0).worker_id() == "worker-0";
  }),
              IsOk());

  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id, 80'000);
  ASSERT_THAT(run, IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  ASSERT_EQ(run->tasks_size(), kTasks);
  std::map<std::string, int> per_worker;
  for (const v1::Task& task : run->tasks()) {
    EXPECT_EQ(task.state(), v1::TASK_STATE_COMPLETED) << task.task_id() << ": " << task.error();
    EXPECT_EQ(task.attempt(), 1) << task.task_id();
    EXPECT_EQ(task.output(), absl::StrCat(task.task_id(), "\n"));
    ++per_worker[task.worker_id()];
  }
  // Every worker ran tasks: the ones added for the second window took work.
  for (int i = 0; i < kWorkers; ++i) {
    EXPECT_GT(per_worker[absl::StrCat("worker-", i)], 0) << "worker-" << i << " ran no task";
  }

  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster.WatchToEnd(*run_id);
  ASSERT_THAT(events, IsOk());
  const std::map<std::string, TaskHistory> histories = Histories(*events);
  ASSERT_EQ(histories.size(), static_cast<size_t>(kTasks));
  for (const auto& [task_id, history] : histories) {
    // One terminal event: committed once. One dispatch and no retry: nothing
    // was handed back by a drained worker or re-run after a lost lease.
    EXPECT_EQ(history.terminal, 1) << task_id;
    EXPECT_EQ(history.last, v1::TASK_STATE_COMPLETED) << task_id;
    EXPECT_EQ(history.dispatched, 1) << task_id;
    EXPECT_EQ(history.retrying, 0) << task_id;
  }
}

}  // namespace
}  // namespace taskboard
