// Agents confined to their task, across real processes (issue 13): a flow
// cannot point an agent at `/`, a command agent does not see the worker's
// token, keys or other variables, and `taskboard tool` cannot reach a tool
// outside the agent's or the phase's allow-list.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;
using testing::StatusIs;

// The integration agents (echo: tests/integration/agents/script.sh) plus
// `confined`, which runs the same script, may call read_file only and gets one
// variable of the worker's. A directory of this suite's own: other tests list
// the shared directory's agents.
std::string AgentsDir() {
  static const testing::TempDir* const dir = [] {
    auto* made = new testing::TempDir();
    const std::filesystem::path shared = testing::SourcePath("tests/integration/agents");
    std::filesystem::copy_file(shared / "script.sh", made->path() / "script.sh");
    std::filesystem::copy_file(shared / "echo.yaml", made->path() / "echo.yaml");
    std::ofstream(made->path() / "confined.yaml") << R"(name: confined
command: ["./script.sh"]
tools: [read_file]
passEnv: [CONFINEMENT_PASSED]
env: {CONFINEMENT_LITERAL: from-the-agent-file}
)";
    return made;
  }();
  return dir->path().string();
}

// The worker inherits the test's environment: its token, an API key, an
// unrelated variable and one the `confined` agent file passes on.
class ConfinementTest : public testing::ClusterTest {
 protected:
  ConfinementTest() : ClusterTest({.agents_dir = AgentsDir()}) {}

  static void SetUpTestSuite() {
    setenv("TASKBOARD_TOKEN", "worker-token-canary", 1);
    setenv("OPENAI_API_KEY", "sk-key-canary", 1);
    setenv("UNRELATED_CANARY", "unrelated-canary", 1);
    setenv("CONFINEMENT_PASSED", "passed-on", 1);
  }
  static void TearDownTestSuite() {
    unsetenv("TASKBOARD_TOKEN");
    unsetenv("OPENAI_API_KEY");
    unsetenv("UNRELATED_CANARY");
    unsetenv("CONFINEMENT_PASSED");
  }
};

TEST_F(ConfinementTest, CwdAtTheFilesystemRoot_RefusedAtSubmitNamingTheField) {
  EXPECT_THAT(cluster_.Submit(R"(
name: escape
phases:
  - id: a
    agent: echo
    task: 'tool read_file {"path": "proc/self/environ"}'
    cwd: /
)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("phases[0].cwd: cwd '/' is an absolute path; give a directory "
                                 "relative to the worker's workspace root")));
  EXPECT_THAT(cluster_.Submit(R"(
name: escape
phases:
  - id: a
    agent: echo
    task: 'tool list_files'
    cwd: ../../..
)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("phases[0].cwd: cwd '../../..' contains '..'")));
}

TEST_F(ConfinementTest, CommandAgentEnvironment_OnlyTheBasicsAndWhatItsFileNames) {
  const v1::Run run = Run(R"(
name: show-env
phases:
  - id: a
    agent: confined
    task: env
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  const std::string env = "\n" + run.output();
  EXPECT_THAT(env, AllOf(Not(HasSubstr("worker-token-canary")), Not(HasSubstr("TASKBOARD_TOKEN=")),
                         Not(HasSubstr("sk-key-canary")), Not(HasSubstr("unrelated-canary"))));
  EXPECT_THAT(env, AllOf(HasSubstr("\nCONFINEMENT_PASSED=passed-on\n"),
                         HasSubstr("\nCONFINEMENT_LITERAL=from-the-agent-file\n"),
                         HasSubstr("\nTASKBOARD_TOOL_SOCKET="), HasSubstr("\nPATH=")));
}

TEST_F(ConfinementTest, TaskboardToolOutsideTheAgentsTools_Refused) {
  const v1::Run run = Run(R"(
name: wrong-tool
phases:
  - id: a
    agent: confined
    task: 'tool list_files'
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_THAT(run.tasks(0).error(),
              HasSubstr("taskboard tool list_files: tool 'list_files' is not allowed for this task "
                        "(its allowed tools: read_file;"));
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_.ToolCalls(run.run_id(), "a");
  ASSERT_THAT(calls.status(), IsOk());
  EXPECT_TRUE(calls->empty());  // refused before anything ran
}

TEST_F(ConfinementTest, TaskboardToolOutsideThePhasesTools_Refused) {
  std::ofstream(cluster_.dir() / "notes.txt") << "remember the milk\n";
  const v1::Run run = Run(R"(
name: phase-tools
phases:
  - id: a
    agent: echo
    tools: [list_files]
    task: 'tool read_file {"path": "notes.txt"}'
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_THAT(run.tasks(0).error(),
              HasSubstr("tool 'read_file' is not allowed for this task (its allowed tools: "
                        "list_files;"));
}

}  // namespace
}  // namespace taskboard
