// Tool calls from command agents across real processes: the agent runs
// `taskboard tool` (tests/integration/agents/script.sh `tool NAME JSON`),
// which reaches its worker's tool socket; the worker asks the real scheduler
// (built-in tools are cacheable; see tool_cache_test.cc for sharing),
// executes and reports the call.

#include <fstream>
#include <string>

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

class ToolsTest : public testing::ClusterTest {};

TEST_F(ToolsTest, CommandAgent_ReadsAFileThroughTaskboardTool) {
  // Workers run with --workdir at the cluster's directory: tasks without a
  // cwd work there, and so do their tools.
  std::ofstream(cluster_.dir() / "notes.txt") << "remember the milk\n";
  const v1::Run run = Run(R"(
name: read-through-tool
phases:
  - id: read
    agent: echo
    task: 'tool read_file {"path": "notes.txt"}'
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  absl::StatusOr<Json> output = ParseJson(run.output());
  ASSERT_THAT(output, IsOk()) << run.output();
  EXPECT_EQ(*output,
            Json::parse(R"({"path": "notes.txt", "content": "remember the milk\n", "bytes": 18})"));
}

TEST_F(ToolsTest, ToolError_FailsTheAgentWithTheToolsMessage) {
  const v1::Run run = Run(R"(
name: escape
phases:
  - id: read
    agent: echo
    task: 'tool read_file {"path": "../outside.txt"}'
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_THAT(run.tasks(0).error(),
              HasSubstr("taskboard tool read_file: path '../outside.txt' is outside the task's "
                        "working directory"));
}

}  // namespace
}  // namespace taskboard
