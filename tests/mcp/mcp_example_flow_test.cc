// The example flow examples/flows/word-count-mcp.yaml as a user runs it: the
// example agents and the example tools directory, whose text-stats.yaml
// starts examples/tools/text_stats_server.js (an MCP server in Node.js). Each
// map task's command agent counts a file through `taskboard tool
// text_count_words`; the file listed twice is counted once, the second call
// answered by the scheduler's cache.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

namespace fs = std::filesystem;
using testing::ClusterOptions;
using testing::IsOk;

// What count_words answers for `text`, counted here independently.
std::string Counted(const std::string& text) {
  std::vector<absl::string_view> words =
      absl::StrSplit(text, absl::ByAnyChar(" \t\n\r\f\v"), absl::SkipEmpty());
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  size_t characters = 0;  // code points: the text is UTF-8
  for (unsigned char c : text) characters += (c & 0xC0) != 0x80;
  return absl::StrCat(words.size(), " words, ", lines, " lines, ", characters, " characters");
}

ClusterOptions ExampleWorker() {
  ClusterOptions options;
  options.workers = 1;
  options.slots = 1;
  options.agents_dir = testing::SourcePath("examples/agents");
  options.worker_flags = {"--tools", testing::SourcePath("examples/tools")};
  return options;
}

class McpExampleFlowTest : public testing::ClusterTest {
 protected:
  McpExampleFlowTest() : ClusterTest(ExampleWorker()) {}
};

TEST_F(McpExampleFlowTest, WordCount_CountsEachFileWithTheMcpTool_TheRepeatIsACacheHit) {
  // The flow's default files, in the worker's working directory.
  fs::create_directories(cluster_.dir() / "docs");
  fs::copy_file(testing::SourcePath("README.md"), cluster_.dir() / "README.md");
  fs::copy_file(testing::SourcePath("docs/mcp.md"), cluster_.dir() / "docs" / "mcp.md");

  absl::StatusOr<std::string> run_id =
      cluster_.Submit(ReadFileOrEmpty(testing::SourcePath("examples/flows/word-count-mcp.yaml")));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk()) << cluster_.Logs();
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();

  const std::string readme = Counted(ReadFileOrEmpty((cluster_.dir() / "README.md").string()));
  const std::string mcp = Counted(ReadFileOrEmpty((cluster_.dir() / "docs" / "mcp.md").string()));
  EXPECT_THAT(run->output(), ::testing::HasSubstr(absl::StrCat("README.md: ", readme)));
  EXPECT_THAT(run->output(), ::testing::HasSubstr(absl::StrCat("docs/mcp.md: ", mcp)));

  int executed = 0;
  int cached = 0;
  for (const v1::Task& task : run->tasks()) {
    absl::StatusOr<std::vector<v1::Observation>> calls =
        cluster_.ToolCalls(run->run_id(), task.task_id());
    ASSERT_THAT(calls.status(), IsOk());
    for (const v1::Observation& call : *calls) {
      EXPECT_EQ(call.tool_name(), "text_count_words");
      (call.cached() ? cached : executed)++;
    }
  }
  EXPECT_EQ(executed, 2) << "README.md once, docs/mcp.md once";
  EXPECT_EQ(cached, 1) << "README.md's second count";
}

}  // namespace
}  // namespace taskboard
