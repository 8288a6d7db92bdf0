// The worker's command line (worker/process/worker_flags.h): defaults, the
// environment variables, the old name of --workspace-root, and the exit codes
// of what CLI11 refuses.

#include "worker/process/worker_flags.h"

#include <stdlib.h>

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

// Parses `args` (after the program name) into `options`.
std::optional<int> Parse(std::vector<std::string> args, WorkerOptions& options) {
  args.insert(args.begin(), "taskboard-worker");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseWorkerFlags(static_cast<int>(argv.size()), argv.data(), options);
}

TEST(WorkerFlags, NoArguments_KeepTheDefaults) {
  WorkerOptions options;
  EXPECT_EQ(Parse({}, options), std::nullopt);
  EXPECT_EQ(options.scheduler, "127.0.0.1:7233");
  EXPECT_EQ(options.slots, 4);
  EXPECT_EQ(options.prefetch, "auto");
  EXPECT_EQ(options.prefetch_max, 64);
  EXPECT_EQ(options.drain_grace_seconds, 30);
  EXPECT_EQ(options.keepalive_time_ms, 10'000);
  EXPECT_EQ(options.keepalive_timeout_ms, 10'000);
  EXPECT_EQ(options.data_dir, DefaultDataDir());
  EXPECT_EQ(options.workspace_root, "");
  EXPECT_EQ(options.log.level, "info");
}

TEST(WorkerFlags, EveryFlag_SetsItsField) {
  WorkerOptions options;
  EXPECT_EQ(Parse({"--scheduler=s:1",
                   "--agents=a",
                   "--slots=2",
                   "--prefetch=0",
                   "--prefetch-max=9",
                   "--worker-id=w",
                   "--drain-grace-seconds=5",
                   "--keepalive-time-ms=2000",
                   "--keepalive-timeout-ms=300",
                   "--workspace-root=/ws",
                   "--data-dir=/d",
                   "--tools=t",
                   "--metrics-listen=127.0.0.1:0",
                   "--metrics-port-file=p",
                   "--token=k",
                   "--tls-ca=ca",
                   "--tls-cert=c",
                   "--tls-key=key",
                   "--log-level=debug",
                   "--log-format=text",
                   "--otlp-endpoint=http://collector:4318"},
                  options),
            std::nullopt);
  EXPECT_EQ(options.scheduler, "s:1");
  EXPECT_EQ(options.agents_dir, "a");
  EXPECT_EQ(options.slots, 2);
  EXPECT_EQ(options.prefetch, "0");
  EXPECT_EQ(options.prefetch_max, 9);
  EXPECT_EQ(options.worker_id, "w");
  EXPECT_EQ(options.drain_grace_seconds, 5);
  EXPECT_EQ(options.keepalive_time_ms, 2000);
  EXPECT_EQ(options.keepalive_timeout_ms, 300);
  EXPECT_EQ(options.workspace_root, "/ws");
  EXPECT_EQ(options.data_dir, "/d");
  EXPECT_EQ(options.tools_dir, "t");
  EXPECT_EQ(options.metrics_listen, "127.0.0.1:0");
  EXPECT_EQ(options.metrics_port_file, "p");
  EXPECT_EQ(options.token, "k");
  EXPECT_EQ(options.tls.ca, "ca");
  EXPECT_EQ(options.tls.cert, "c");
  EXPECT_EQ(options.tls.key, "key");
  EXPECT_EQ(options.log.level, "debug");
  EXPECT_EQ(options.log.format, "text");
  EXPECT_EQ(options.otlp_endpoint, "http://collector:4318");
}

TEST(WorkerFlags, Workdir_IsTheOldNameOfWorkspaceRoot) {
  WorkerOptions options;
  EXPECT_EQ(Parse({"--workdir", "/checkout"}, options), std::nullopt);
  EXPECT_EQ(options.workspace_root, "/checkout");
}

TEST(WorkerFlags, EnvironmentVariable_SetsTheFlag) {
  setenv("TASKBOARD_SLOTS", "7", 1);
  setenv("TASKBOARD_WORKSPACE_ROOT", "/from-env", 1);
  WorkerOptions options;
  const std::optional<int> exit_code = Parse({}, options);
  unsetenv("TASKBOARD_SLOTS");
  unsetenv("TASKBOARD_WORKSPACE_ROOT");
  EXPECT_EQ(exit_code, std::nullopt);
  EXPECT_EQ(options.slots, 7);
  EXPECT_EQ(options.workspace_root, "/from-env");
}

TEST(WorkerFlags, PrefetchNeitherAutoNorANumber_ExitsTwo) {
  WorkerOptions options;
  EXPECT_EQ(Parse({"--prefetch", "lots"}, options), 2);
  EXPECT_EQ(Parse({"--prefetch", "4097"}, options), 2);
}

TEST(WorkerFlags, ValueOutOfRangeOrUnknownFlag_ExitsTwo) {
  WorkerOptions options;
  EXPECT_EQ(Parse({"--slots", "0"}, options), 2);
  EXPECT_EQ(Parse({"--keepalive-time-ms", "999"}, options), 2);
  EXPECT_EQ(Parse({"--no-such-flag"}, options), 2);
}

TEST(WorkerFlags, Version_ExitsZero) {
  WorkerOptions options;
  EXPECT_EQ(Parse({"--version"}, options), 0);
}

}  // namespace
}  // namespace taskboard::worker
