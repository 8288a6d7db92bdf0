// MCP tools through a real scheduler and workers (docs/mcp.md): a command
// agent calls them with `taskboard tool`, and the call takes the path every
// tool call takes: the shared cache, one observation in the ledger. Every
// worker runs its own fake_mcp_server.py; all of them log what they receive
// to one file, so "how many times did this run" is counted outside
// Taskboard.

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;

const testing::TempDir& ToolsDir() {
  static testing::TempDir dir;
  static const bool written = [] {
    std::ofstream(dir.path() / "fake.yaml")
        << "mcp:\n  command: python3\n  args: [\"" << TASKBOARD_SOURCE_DIR
        << "/tests/mcp/fake_mcp_server.py\", \"" << (dir.path() / "received.jsonl").string()
        << "\"]\nprefix: fake_\ntimeout_seconds: 10\n"
        << "tools:\n"
        << "  echo: {cacheable: true, ttl_ms: 600000, scope: session, key_fields: [message]}\n"
        << "  fail: {cacheable: true, ttl_ms: 600000, scope: session}\n";
    return true;
  }();
  (void)written;
  return dir;
}

// How many tools/call requests for `tool` with `arguments` the fake servers
// of all workers received.
int Executions(const std::string& tool, const Json& arguments) {
  std::ifstream in(ToolsDir().path() / "received.jsonl");
  int count = 0;
  for (std::string line; std::getline(in, line);) {
    std::optional<Json> message = TryParseJson(line);
    if (message.has_value() && message->value("method", "") == "tools/call" &&
        (*message)["params"]["name"] == tool && (*message)["params"]["arguments"] == arguments) {
      ++count;
    }
  }
  return count;
}

ClusterOptions TwoOneSlotWorkersWithMcp() {
  ClusterOptions options;
  options.workers = 2;
  options.slots = 1;
  options.worker_flags = {"--tools", ToolsDir().path().string()};
  return options;
}

class McpClusterTest : public testing::ClusterTest {
 protected:
  McpClusterTest() : ClusterTest(TwoOneSlotWorkersWithMcp()) {}

  v1::Run RunToEnd(const std::string& flow, const std::string& session_id) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow, Json::object(), session_id);
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk()) << cluster_.Logs();
    return run.ok() ? *run : v1::Run();
  }

  std::vector<v1::Observation> Calls(const v1::Run& run) {
    std::vector<v1::Observation> all;
    for (const v1::Task& task : run.tasks()) {
      absl::StatusOr<std::vector<v1::Observation>> calls =
          cluster_.ToolCalls(run.run_id(), task.task_id());
      EXPECT_THAT(calls.status(), IsOk());
      if (calls.ok()) all.insert(all.end(), calls->begin(), calls->end());
    }
    return all;
  }
};

TEST_F(McpClusterTest, CommandAgents_OnTwoWorkers_SameCacheableMcpCall_OneExecution) {
  const Json arguments = {{"message", "shared"}};
  const int before = Executions("echo", arguments);
  std::string tasks;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&tasks, "    - {id: t", i,
                    ", agent: echo, task: 'tool fake_echo {\"message\": \"shared\"}'}\n");
  }
  const v1::Run run =
      RunToEnd(absl::StrCat("name: mcp-shared\nkind: board\nboard:\n  tasks:\n", tasks), "s1");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  for (const v1::Task& task : run.tasks()) {
    EXPECT_THAT(task.output(), HasSubstr(R"("text":"shared")")) << task.task_id();
  }
  EXPECT_EQ(Executions("echo", arguments) - before, 1);
  std::vector<v1::Observation> executed, served;
  for (const v1::Observation& call : Calls(run)) {
    EXPECT_EQ(call.tool_name(), "fake_echo");
    (call.cached() ? served : executed).push_back(call);
  }
  ASSERT_EQ(executed.size(), 1u);
  EXPECT_EQ(served.size(), 3u);
  std::map<std::string, int> per_worker;
  for (const v1::Task& task : run.tasks()) per_worker[task.worker_id()]++;
  EXPECT_EQ(per_worker.size(), 2u) << "both workers ran tasks";
}

TEST_F(McpClusterTest, IsErrorResults_AreFailures_NeverCached) {
  const int before = Executions("fail", Json::object());
  constexpr char kFlow[] = R"(
name: mcp-fail
phases:
  - id: call
    agent: echo
    task: 'tool fake_fail {}'
)";
  for (int i = 0; i < 2; ++i) {
    const v1::Run run = RunToEnd(kFlow, "s2");
    const std::vector<v1::Observation> calls = Calls(run);
    ASSERT_EQ(calls.size(), 1u) << cluster_.Logs();
    EXPECT_FALSE(calls[0].cached());
    EXPECT_THAT(calls[0].error(), HasSubstr("MCP server 'fake', tool 'fail' failed: the thing is "
                                            "broken"));
  }
  EXPECT_EQ(Executions("fail", Json::object()) - before, 2);
}

}  // namespace
}  // namespace taskboard
