// The services' logs (docs/services.md#logs): with --log-level debug every
// line a scheduler and a worker write is one JSON object with ts, level and
// msg; run, task and worker ids are on the lines about them; an unknown
// level is a usage error.

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::BinaryPath;
using testing::Cluster;
using testing::ClusterOptions;
using testing::Exited;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::RunToExit;

// Every line of a service's log, parsed; a line that is not a JSON object
// with the fixed keys fails the test (naming the file and the line).
std::vector<Json> JsonLines(const std::filesystem::path& path) {
  const std::regex rfc3339_ms(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  std::vector<Json> lines;
  for (absl::string_view line :
       absl::StrSplit(ReadFileOrEmpty(path.string()), '\n', absl::SkipEmpty())) {
    absl::StatusOr<Json> json = ParseJson(line);
    EXPECT_TRUE(json.ok() && json->is_object()) << path.filename() << ": not JSON: " << line;
    if (!json.ok() || !json->is_object()) continue;
    EXPECT_TRUE((*json)["msg"].is_string()) << line;
    EXPECT_THAT(std::vector<std::string>({"debug", "info", "warn", "error", "fatal"}),
                ::testing::Contains(json->value("level", "")))
        << line;
    EXPECT_TRUE(std::regex_match(json->value("ts", ""), rfc3339_ms)) << line;
    lines.push_back(*std::move(json));
  }
  return lines;
}

// The lines whose msg is `msg` and whose `key` is `value`.
std::vector<Json> Find(const std::vector<Json>& lines, const std::string& msg,
                       const std::string& key, const std::string& value) {
  std::vector<Json> found;
  for (const Json& line : lines) {
    if (line.value("msg", "") == msg && line.value(key, "") == value) found.push_back(line);
  }
  return found;
}

TEST(LoggingTest, DebugLevel_EveryLineIsJsonAndCarriesRunTaskAndWorkerIds) {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--log-level", "debug"};
  options.worker_flags = {"--log-level", "debug"};
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  // A quoted output and a failed first attempt (an error on stderr) put
  // quotes and free text into the lines.
  absl::StatusOr<std::string> run_id = cluster.Submit(R"(
name: logged
phases:
  - id: quoted
    agent: echo
    task: 'echo say "hi"'
  - id: flaky
    agent: echo
    retries: 1
    task: 'fail-once done'
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  // The worker drains and exits (its last lines written); the scheduler is
  // killed: each line is one write, so what it wrote is whole either way.
  cluster.KillWorker(0, SIGTERM);
  cluster.KillScheduler(SIGKILL);

  const std::vector<Json> scheduler = JsonLines(cluster.dir() / "scheduler.log");
  const std::vector<Json> worker = JsonLines(cluster.dir() / "worker-0.log");

  std::vector<Json> finished = Find(scheduler, "run finished", "run_id", *run_id);
  ASSERT_EQ(finished.size(), 1u) << cluster.Logs();
  EXPECT_EQ(finished[0]["status"], "RUN_STATUS_COMPLETED");
  EXPECT_EQ(finished[0]["kind"], "FLOW_KIND_TASKFLOW");
  EXPECT_EQ(finished[0]["component"], "scheduler");
  EXPECT_EQ(Find(scheduler, "run submitted", "run_id", *run_id).size(), 1u);
  EXPECT_EQ(Find(scheduler, "worker connected", "worker_id", "worker-0").size(), 1u);
  // Debug: one dispatch per attempt (quoted once, flaky twice).
  EXPECT_EQ(Find(scheduler, "task dispatched", "run_id", *run_id).size(), 3u) << cluster.Logs();

  EXPECT_EQ(Find(worker, "connected to scheduler", "worker_id", "worker-0").size(), 1u);
  std::vector<Json> tasks = Find(worker, "task finished", "run_id", *run_id);
  ASSERT_EQ(tasks.size(), 3u) << cluster.Logs();
  int failed = 0;
  for (const Json& task : tasks) {
    EXPECT_EQ(task["agent"], "echo");
    EXPECT_EQ(task["worker_id"], "worker-0");
    EXPECT_TRUE(task["task_id"].is_string() && !task["task_id"].empty()) << task.dump();
    if (task["outcome"] == "failed") {
      ++failed;
      EXPECT_THAT(task.value("error", ""), HasSubstr("first attempt fails"));
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(Find(worker, "drained; exiting", "worker_id", "worker-0").size(), 1u);
}

TEST(LoggingTest, InfoLevel_NoPerTaskLines) {
  ClusterOptions options;
  options.workers = 1;
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(R"(
name: quiet
phases:
  - id: one
    agent: echo
    task: 'echo one'
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  cluster.KillWorker(0, SIGTERM);
  cluster.KillScheduler(SIGKILL);

  const std::vector<Json> scheduler = JsonLines(cluster.dir() / "scheduler.log");
  const std::vector<Json> worker = JsonLines(cluster.dir() / "worker-0.log");
  EXPECT_EQ(Find(scheduler, "run finished", "run_id", *run_id).size(), 1u);
  for (const std::vector<Json>* lines : {&scheduler, &worker}) {
    for (const Json& line : *lines) EXPECT_NE(line["level"], "debug") << line.dump();
  }
}

TEST(LoggingTest, UnknownLogLevel_BothServicesExitWithUsageError) {
  // --memory: a scheduler that wrongly started would leave no data behind.
  const std::map<std::string, std::vector<std::string>> runs = {
      {"taskboard-scheduler", {"--memory", "--log-level", "bogus"}},
      {"taskboard-worker", {"--log-level", "bogus"}}};
  for (const auto& [binary, args] : runs) {
    Exited exited = RunToExit(binary, args);
    EXPECT_EQ(exited.code, 2) << binary << ": " << exited.output;
    EXPECT_THAT(exited.output, HasSubstr("--log-level: unknown log level 'bogus'")) << binary;
    EXPECT_THAT(exited.output, HasSubstr("debug, info, warn, error, fatal")) << binary;
  }
}

TEST(LoggingTest, UnknownLogLevelInEnvironment_ExitsWithUsageError) {
  Exited exited = RunToExit("taskboard-scheduler", {"--memory"}, {{"TASKBOARD_LOG_LEVEL", "loud"}});
  EXPECT_EQ(exited.code, 2) << exited.output;
  EXPECT_THAT(exited.output, HasSubstr("'loud'"));
  EXPECT_THAT(exited.output, HasSubstr("TASKBOARD_LOG_LEVEL"));
}

}  // namespace
}  // namespace taskboard
