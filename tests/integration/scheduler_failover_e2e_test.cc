// Clients of replicated schedulers against real processes
// (docs/operations.md#clients-and-replicated-schedulers): a taskboard-worker
// and the `taskboard` CLI given `--scheduler DEAD,LIVE` skip the address
// nothing listens on, and a run completes through the live scheduler. (The
// NotLeader redirect between replicas is tested against in-process fakes in
// tests/cli/scheduler_failover_test.cc and
// tests/unit/worker/session/session_failover_test.cc, until
// taskboard-scheduler runs as replicas.)

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

// A loopback port nothing listens on: bound, read back and closed.
std::string DeadAddress() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  close(fd);
  return absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
}

TEST(SchedulerFailoverE2e, WorkerAndCliSkipADeadFirstAddress_RunCompletes) {
  testing::ClusterOptions options;
  options.workers = 0;  // started below with the address list
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  const std::string addresses = absl::StrCat(DeadAddress(), ",", cluster.address());

  const std::filesystem::path worker_log = cluster.dir() / "failover-worker.log";
  absl::StatusOr<std::unique_ptr<ChildProcess>> worker = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard-worker"), "--scheduler", addresses, "--agents",
       testing::SourcePath("tests/integration/agents"), "--worker-id", "failover-worker",
       "--workspace-root", cluster.dir().string(), "--drain-grace-seconds", "1"},
      worker_log.string());
  ASSERT_THAT(worker.status(), IsOk());
  ASSERT_THAT(cluster
                  .WaitForWorkers([](const v1::ListWorkersResponse& workers) {
                    return workers.workers_size() == 1;
                  })
                  .status(),
              IsOk())
      << ReadFileOrEmpty(worker_log);

  const std::filesystem::path flow = cluster.dir() / "failover.yaml";
  std::ofstream(flow) << "name: failover\n"
                         "phases:\n"
                         "  - {id: greet, agent: echo, task: echo hello from the leader}\n";
  const std::filesystem::path cli_log = cluster.dir() / "failover-cli.log";
  absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard"), "run", flow.string(), "--scheduler", addresses},
      cli_log.string());
  ASSERT_THAT(cli.status(), IsOk());
  EXPECT_EQ((*cli)->WaitFor(60'000), 0)
      << ReadFileOrEmpty(cli_log) << cluster.Logs() << ReadFileOrEmpty(worker_log);
  EXPECT_THAT(ReadFileOrEmpty(cli_log), HasSubstr("hello from the leader"));
  (*worker)->KillGroup();
}

}  // namespace
}  // namespace taskboard
