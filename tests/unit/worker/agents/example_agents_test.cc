// The command agents of examples/agents (the offline repo-digest demo, and
// word-counter of the word-count-mcp example, run in tests/mcp), run through
// the registry as a worker would run them.

#include <fstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/worker/agents/fake_agent_context.h"
#include "worker/agents/agent_registry.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::taskboard::worker::testing::FakeAgentContext;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class ExampleAgentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile("src/main.cc", "// Starts the demo server.\nint main() { return 0; }\n");
    WriteFile("src/util.h", "#ifndef UTIL_H_\n// Small string helpers.\n#endif\n");
    WriteFile("src/build/gen.cc", "// generated\n");
    WriteFile("src/.git/hook.sh", "# hook\n");
    WriteFile("src/notes.txt", "not code\n");
    WriteFile("src/lib/parse.cc", "#include \"x.h\"\n\nint Parse(const char* text) {\n}\n");
    absl::StatusOr<std::unique_ptr<AgentRegistry>> registry = AgentRegistry::Load(
        std::string(TASKBOARD_SOURCE_DIR) + "/examples/agents", {.workdir = dir_.path()});
    ASSERT_THAT(registry, IsOk());
    registry_ = *std::move(registry);
  }

  void WriteFile(const std::string& name, const std::string& text) {
    std::filesystem::create_directories((dir_.path() / name).parent_path());
    std::ofstream(dir_.path() / name) << text;
  }

  // Runs `agent` with `prompt` (and args {dir: "src"}); expects success.
  std::string Run(const std::string& agent, const std::string& prompt) {
    absl::StatusOr<const Agent*> found = registry_->Find(agent);
    EXPECT_THAT(found, IsOk());
    if (!found.ok()) return "";
    v1::Assignment task;
    task.set_task_id(agent);
    task.set_agent(agent);
    task.set_prompt(prompt);
    (*task.mutable_args()->mutable_fields())["dir"].set_string_value("src");
    FakeAgentContext context;
    AgentOutcome outcome = (*found)->Run(task, context);
    EXPECT_TRUE(outcome.success) << outcome.error;
    return outcome.output;
  }

  TempDir dir_;
  std::unique_ptr<AgentRegistry> registry_;
};

// The merged output of a map phase over `outputs` (docs/semantics.md#map-and-parallel-phases).
std::string MapOutput(const std::vector<std::string>& outputs) {
  std::string merged;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (i > 0) merged += "\n\n---\n\n";
    merged += "### [" + std::to_string(i + 1) + "/" + std::to_string(outputs.size()) +
              "] summarizer\n\n" + outputs[i];
  }
  return merged;
}

TEST_F(ExampleAgentsTest, EveryExampleAgentIsOffered) {
  std::vector<std::string> names;
  for (const v1::AgentInfo& info : registry_->Advertised()) names.push_back(info.name());
  EXPECT_THAT(names,
              ElementsAre("noop", "reviewer", "scout", "summarizer", "word-counter", "writer"));
  EXPECT_THAT(registry_->unavailable(), IsEmpty());
}

TEST_F(ExampleAgentsTest, Scout_ListsSourceFilesSortedAsJson) {
  absl::StatusOr<Json> files = ParseJson(Run("scout", "List the source files under src (code"));
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(*files, Json::parse(R"([{"file": "src/lib/parse.cc"}, {"file": "src/main.cc"},
                                    {"file": "src/util.h"}])"));
}

TEST_F(ExampleAgentsTest, Summarizer_OneSentenceStartingWithTheFileName) {
  EXPECT_EQ(Run("summarizer", "Read src/main.cc and summarize what it does in one sentence."),
            "src/main.cc (2 lines): Starts the demo server.\n");
  EXPECT_EQ(Run("summarizer", "Read src/util.h and summarize it."),
            "src/util.h (3 lines): Small string helpers.\n");
  EXPECT_EQ(Run("summarizer", "Read src/lib/parse.cc and summarize it."),
            "src/lib/parse.cc (4 lines) defines Parse.\n");
}

TEST_F(ExampleAgentsTest, Reviewer_PassesWithSummaries_BlocksWithout) {
  EXPECT_EQ(
      Run("reviewer", "Summaries:\n\n" + MapOutput({"a.cc (1 lines): A.", "b.cc (2 lines): B."})),
      "Reviewed 2 summaries: 2 succeeded, 0 failed.\nVERDICT: PASS\n");
  EXPECT_THAT(Run("reviewer", "Summaries:\n\n\n\nEnd with a verdict."),
              HasSubstr("VERDICT: BLOCK no usable summaries"));
}

TEST_F(ExampleAgentsTest, Writer_GroupsSummariesByDirectory) {
  const std::string overview =
      Run("writer",
          "Write a short overview of the code\nunder src, based on these per-file "
          "summaries:\n\n" +
              MapOutput({"src/lib/parse.cc (4 lines) defines Parse.",
                         "src/main.cc (2 lines): Starts the demo server."}) +
              "\n\nGroup related files.");
  EXPECT_EQ(overview,
            "# Overview of src\n\n"
            "2 files in 2 directories; most of them are in src.\n\n"
            "## src\n\n"
            "- src/main.cc (2 lines): Starts the demo server.\n\n"
            "## src/lib\n\n"
            "- src/lib/parse.cc (4 lines) defines Parse.\n\n"
            "## Read first\n\n"
            "1. src/lib/parse.cc (4 lines)\n"
            "2. src/main.cc (2 lines)\n");
}

}  // namespace
}  // namespace taskboard::worker
