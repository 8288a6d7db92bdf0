// Command tools: their files, and running them as real child processes.

#include "worker/tools/command_tool.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class CommandToolTest : public ::testing::Test {
 protected:
  // A tool running `script` with /bin/sh -c.
  CommandTool ShellTool(const std::string& script, int timeout_seconds = 60) {
    CommandToolDefinition def;
    def.declaration.set_name("t");
    def.argv = {"/bin/sh", "-c", script};
    def.timeout = absl::Seconds(timeout_seconds);
    def.source = dir_.path() / "t.yaml";
    return CommandTool(def, {.kill_grace = absl::Milliseconds(200)});
  }

  absl::StatusOr<std::string> Run(const CommandTool& tool, const std::string& args = "{}") {
    return tool.Execute(args, ToolContext{dir_.path(), &cancel_});
  }

  std::string ReadFile(const std::string& name) const {
    std::ifstream in(dir_.path() / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  TempDir dir_;
  CancelToken cancel_;
};

TEST_F(CommandToolTest, JsonStdout_IsTheResult) {
  absl::StatusOr<std::string> result = Run(ShellTool(R"(echo '{ "n" : 1 }')"));
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(*result, R"({"n":1})");
}

TEST_F(CommandToolTest, TextStdout_BecomesAJsonString) {
  absl::StatusOr<std::string> result = Run(ShellTool("echo hello world"));
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(*result, R"("hello world\n")");
}

TEST_F(CommandToolTest, ArgsOnStdinAndRunsInTheTaskWorkdir) {
  absl::StatusOr<std::string> result =
      Run(ShellTool("cat > args.json; pwd > where.txt; echo done"), R"({"path":"a.txt"})");
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(ReadFile("args.json"), R"({"path":"a.txt"})");
  EXPECT_EQ(ReadFile("where.txt"), std::filesystem::canonical(dir_.path()).string() + "\n");
}

TEST_F(CommandToolTest, Environment_ScrubbedToTheBasicsAndPassEnv) {
  setenv("TASKBOARD_TOKEN", "worker-secret", 1);
  setenv("UNRELATED_CANARY", "canary", 1);
  setenv("HTTPS_PROXY", "http://proxy:3128", 1);
  CommandToolDefinition def;
  def.declaration.set_name("t");
  def.argv = {"/usr/bin/env"};
  def.pass_env = {"HTTPS_PROXY"};
  def.source = dir_.path() / "t.yaml";
  absl::StatusOr<std::string> result = Run(CommandTool(def, {}));
  unsetenv("TASKBOARD_TOKEN");
  unsetenv("UNRELATED_CANARY");
  unsetenv("HTTPS_PROXY");
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(*result, Not(HasSubstr("worker-secret")));
  EXPECT_THAT(*result, Not(HasSubstr("UNRELATED_CANARY")));
  EXPECT_THAT(*result, HasSubstr("HTTPS_PROXY=http://proxy:3128"));
  EXPECT_THAT(*result, HasSubstr("PATH="));
}

TEST_F(CommandToolTest, NonZeroExit_ErrorWithCodeAndStderrTail) {
  EXPECT_THAT(Run(ShellTool("echo first >&2; echo 'no such file: a.txt' >&2; exit 3")),
              StatusIs(absl::StatusCode::kUnknown,
                       AllOf(HasSubstr("exited with code 3"), HasSubstr("no such file: a.txt"))));
}

TEST_F(CommandToolTest, Timeout_StopsTheProcess) {
  EXPECT_THAT(Run(ShellTool("exec sleep 30", /*timeout_seconds=*/1)),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("timed out after 1s")));
}

TEST_F(CommandToolTest, Cancelled_StopsTheProcess) {
  cancel_.Cancel("task over");
  EXPECT_THAT(Run(ShellTool("exec sleep 30")),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("task over")));
}

TEST_F(CommandToolTest, EachExecuteRunsTheCommandOnce) {
  const CommandTool tool = ShellTool("echo x >> count.txt; echo ok");
  ASSERT_THAT(Run(tool), IsOk());
  ASSERT_THAT(Run(tool), IsOk());
  EXPECT_EQ(ReadFile("count.txt"), "x\nx\n");
}

TEST(CommandToolFile, AllFields_Declared) {
  absl::StatusOr<CommandToolDefinition> def = ParseCommandToolFile("/tools/grep.yaml", R"(
name: search
description: Searches files
parameters: {type: object, properties: {pattern: {type: string}}}
command: [./grep.sh, --fixed]
timeout_seconds: 5
cacheable: true
ttl_ms: 1000
scope: request
key_fields: [pattern]
)");
  ASSERT_THAT(def, IsOk());
  EXPECT_EQ(def->declaration.name(), "search");
  EXPECT_EQ(def->declaration.description(), "Searches files");
  EXPECT_EQ(Json::parse(def->declaration.parameters_schema_json())["properties"]["pattern"]["type"],
            "string");
  EXPECT_THAT(def->argv, ElementsAre("/tools/grep.sh", "--fixed"));
  EXPECT_EQ(def->timeout, absl::Seconds(5));
  EXPECT_TRUE(def->declaration.cacheable());
  EXPECT_EQ(def->declaration.default_ttl_ms(), 1000);
  EXPECT_EQ(def->declaration.default_scope(), v1::CACHE_SCOPE_REQUEST);
  EXPECT_THAT(def->declaration.key_fields(), ElementsAre("pattern"));
}

TEST(CommandToolFile, Defaults_NameFromFileNotCacheable) {
  absl::StatusOr<CommandToolDefinition> def =
      ParseCommandToolFile("/tools/word-count.json", R"({"command": ["wc", "-w"]})");
  ASSERT_THAT(def, IsOk());
  EXPECT_EQ(def->declaration.name(), "word-count");
  EXPECT_FALSE(def->declaration.cacheable());
  EXPECT_EQ(def->declaration.default_ttl_ms(), 0);
  EXPECT_EQ(def->declaration.parameters_schema_json(), R"({"type":"object"})");
  EXPECT_EQ(def->timeout, absl::Seconds(60));
  EXPECT_THAT(def->argv, ElementsAre("wc", "-w"));
}

TEST(CommandToolFile, PassEnv_NamesTheVariablesButNeverTheWorkerToken) {
  absl::StatusOr<CommandToolDefinition> def =
      ParseCommandToolFile("/t/a.yaml", "command: [x]\npass_env: [HTTPS_PROXY, NO_PROXY]\n");
  ASSERT_THAT(def, IsOk());
  EXPECT_THAT(def->pass_env, ElementsAre("HTTPS_PROXY", "NO_PROXY"));
  EXPECT_THAT(ParseCommandToolFile("/t/a.yaml", "command: [x]\npass_env: [TASKBOARD_TOKEN]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'pass_env': TASKBOARD_TOKEN is the worker's own token")));
  EXPECT_THAT(ParseCommandToolFile("/t/a.yaml", "command: [x]\npass_env: [\"A=B\"]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a variable name")));
}

TEST(CommandToolFile, Problems_NameTheFileAndField) {
  EXPECT_THAT(
      ParseCommandToolFile("/t/a.yaml", "command: [x]\ntimeout: 3\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("tool file /t/a.yaml"), HasSubstr("unknown field 'timeout'"))));
  EXPECT_THAT(
      ParseCommandToolFile("/t/a.yaml", "description: x\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field 'command' is required")));
  EXPECT_THAT(ParseCommandToolFile("/t/a.yaml", "command: [x]\nscope: global\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'scope' must be one of run, request, session")));
  EXPECT_THAT(ParseCommandToolFile("/t/a.yaml", "command: [x]\nttl_ms: 0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field 'ttl_ms'")));
  EXPECT_THAT(ParseCommandToolFile("/t/a b.yaml", "command: [x]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a valid tool name")));
}

TEST(CommandToolFile, LoadDir_OneToolPerFileSortedByFileName) {
  TempDir dir;
  std::ofstream(dir.path() / "b.yaml") << "command: [cat]\n";
  std::ofstream(dir.path() / "a.json") << R"({"command": ["cat"]})";
  std::ofstream(dir.path() / "notes.txt") << "not a tool";
  absl::StatusOr<std::vector<std::unique_ptr<Tool>>> tools = LoadCommandTools(dir.path());
  ASSERT_THAT(tools, IsOk());
  ASSERT_EQ(tools->size(), 2u);
  EXPECT_EQ((*tools)[0]->name(), "a");
  EXPECT_EQ((*tools)[1]->name(), "b");
  EXPECT_EQ((*tools)[1]->source(), (dir.path() / "b.yaml").string());
}

}  // namespace
}  // namespace taskboard::worker
