// A real worker's prefetch queue against a real scheduler (docs/services.md,
// --prefetch): with the default `auto`, a burst of no-op tasks, which end far
// faster than a result's round trip, grows the queue, and the scheduler takes
// the new size (its free places after the run are the slots plus the grown
// queue); a fixed --prefetch never moves; a bad value is a usage error.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::Cluster;
using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;

// A board of `n` no-op tasks.
std::string NoopBoard(int n) {
  std::string tasks;
  for (int i = 0; i < n; ++i) {
    if (i > 0) tasks += ",";
    tasks += R"({"id": "t)" + std::to_string(i) + R"(", "agent": "noop", "task": "x"})";
  }
  return R"({"name": "prefetch", "kind": "board", "board": {"tasks": [)" + tasks + "]}}";
}

// Runs the board on a one-slot worker started with `worker_flags`, then
// returns the worker's free places once every task is done and its credits
// are back.
int FreePlacesAfterABurst(std::vector<std::string> worker_flags) {
  ClusterOptions options;
  options.workers = 1;
  options.slots = 1;
  options.worker_flags = std::move(worker_flags);
  Cluster cluster(options);
  EXPECT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(NoopBoard(300));
  EXPECT_THAT(run_id.status(), IsOk()) << cluster.Logs();
  if (!run_id.ok()) return -1;
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  EXPECT_THAT(run.status(), IsOk());
  if (!run.ok()) return -1;
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  // Credits come back after the last results; wait until they stop moving
  // (two equal answers in a row with nothing running).
  int last = -1;
  absl::StatusOr<v1::ListWorkersResponse> workers =
      cluster.WaitForWorkers([&last](const v1::ListWorkersResponse& response) {
        if (response.workers_size() != 1) return false;
        const int free = response.workers(0).free_slots();
        const bool settled = free == last;
        last = free;
        return settled;
      });
  EXPECT_THAT(workers.status(), IsOk()) << cluster.Logs();
  return last;
}

TEST(WorkerPrefetchTest, Auto_NoopBurst_GrowsTheQueueTheSchedulerFills) {
  // One slot plus a queue of one at the start; no-op tasks against a round
  // trip through the group commit call for the ceiling (64).
  EXPECT_GT(FreePlacesAfterABurst({}), 2);
}

TEST(WorkerPrefetchTest, FixedPrefetch_NeverMoves) {
  EXPECT_EQ(FreePlacesAfterABurst({"--prefetch", "1"}), 2);
}

TEST(WorkerPrefetchTest, BadPrefetch_UsageError) {
  const testing::Exited exited = testing::RunToExit("taskboard-worker", {"--prefetch", "lots"});
  EXPECT_EQ(exited.code, 2) << exited.output;
  EXPECT_THAT(exited.output, HasSubstr("--prefetch: must be auto or a number from 0 to 4096"));
}

}  // namespace
}  // namespace taskboard
