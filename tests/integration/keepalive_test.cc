// Dead connections are noticed in seconds, by HTTP/2 keepalive on both ends
// (--keepalive-time-ms, --keepalive-timeout-ms), not at the kernel's TCP
// timeout: a stopped worker (SIGSTOP: its socket stays open and the kernel
// still acknowledges, but nothing answers a ping) leaves the scheduler's
// registry and its task runs elsewhere; a worker whose scheduler stopped
// drops the stream and reconnects once it is back.

#include <csignal>
#include <string>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using testing::IsOk;

const std::vector<std::string> kFastKeepalive = {"--keepalive-time-ms", "1000",
                                                 "--keepalive-timeout-ms", "1000"};

ClusterOptions FastKeepalive() {
  ClusterOptions options;
  options.workers = 2;
  options.slots = 1;
  // Longer than the keepalive needs: the stopped worker must leave the
  // registry by keepalive, while its lease is still current.
  options.lease_timeout_ms = 20'000;
  options.scheduler_flags = kFastKeepalive;
  options.worker_flags = kFastKeepalive;
  return options;
}

bool Lists(const v1::ListWorkersResponse& workers, const std::string& worker_id) {
  for (const v1::WorkerInfo& worker : workers.workers()) {
    if (worker.worker_id() == worker_id) return true;
  }
  return false;
}


class KeepaliveTest : public testing::ClusterTest {
 protected:
  KeepaliveTest() : ClusterTest(FastKeepalive()) {}
  void TearDown() override {
    // Whatever a failed assertion left stopped must run again to be killed
    // cleanly.
    if (cluster_.worker(0) != nullptr) cluster_.worker(0)->Signal(SIGCONT);
    if (cluster_.scheduler() != nullptr) cluster_.scheduler()->Signal(SIGCONT);
  }
};

TEST_F(KeepaliveTest, StoppedWorker_LeavesTheRegistryInSeconds) {
  ASSERT_THAT(cluster_.WaitForWorkers([](const v1::ListWorkersResponse& workers) {
    return Lists(workers, "worker-0") && Lists(workers, "worker-1");
  }).status(),
              IsOk());
  cluster_.worker(0)->Signal(SIGSTOP);
  const absl::Time stopped = absl::Now();
  // Keepalive (1 s + 1 s) ends the stream; the lease (20 s) has nothing to
  // do with it.
  ASSERT_THAT(cluster_.WaitForWorkers(
                  [](const v1::ListWorkersResponse& workers) {
                    return !Lists(workers, "worker-0") && Lists(workers, "worker-1");
                  },
                  15'000)
                  .status(),
              IsOk());
  EXPECT_LT(absl::Now() - stopped, absl::Seconds(15));

  // Work goes to the live worker meanwhile.
  const v1::Run run = Run(R"({"name": "while-stopped", "phases": [
      {"id": "a", "agent": "echo", "task": "echo on the live worker"}]})");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_EQ(run.tasks(0).worker_id(), "worker-1");

  // Resumed, it reconnects on its own.
  cluster_.worker(0)->Signal(SIGCONT);
  EXPECT_THAT(cluster_.WaitForWorkers([](const v1::ListWorkersResponse& workers) {
    return Lists(workers, "worker-0");
  }, 20'000).status(),
              IsOk());
}

TEST_F(KeepaliveTest, StoppedScheduler_WorkersDropTheStreamAndReconnectWhenItIsBack) {
  ASSERT_THAT(cluster_.WaitForWorkers([](const v1::ListWorkersResponse& workers) {
    return workers.workers_size() == 2;
  }).status(),
              IsOk());
  const std::filesystem::path log = cluster_.dir() / "worker-0.log";
  cluster_.scheduler()->Signal(SIGSTOP);
  // The worker's keepalive ends its stream while the scheduler is stopped.
  const absl::Time deadline = absl::Now() + absl::Seconds(15);
  bool noticed = false;
  while (!noticed && absl::Now() < deadline) {
    noticed = absl::StrContains(ReadFileOrEmpty(log.string()), "reconnecting");
    if (!noticed) absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(noticed) << "worker-0 did not notice the stopped scheduler:\n" << ReadFileOrEmpty(log.string());
  cluster_.scheduler()->Signal(SIGCONT);

  const v1::Run run = Run(R"({"name": "after-stop", "phases": [
      {"id": "a", "agent": "echo", "task": "echo back"}]})");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
}

}  // namespace
}  // namespace taskboard
