// Agents confined to their task, across real processes (issue 13): a flow
// cannot point an agent at `/`, a command agent does not see the worker's
// token, keys or other variables, and `taskboard tool` cannot reach a tool
// outside the agent's or the phase's allow-list.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/agents_dir.h"
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

// The integration agents plus `confined`, which runs the same script, may
// call read_file only and gets one variable of the worker's.
std::string AgentsDir() {
  return testing::IntegrationAgentsWith({{"confined.yaml", R"(name: confined
command: ["./script.sh"]
tools: [read_file]
passEnv: [CONFINEMENT_PASSED]
env: {CONFINEMENT_LITERAL: from-the-agent-file}
)"}});
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

// The worker's secrets leave its start-up environment: the agent can read
// /proc/<worker pid>/environ (CI runs as root, past PR_SET_DUMPABLE), and it
// shows every other variable, but the token and the key have no value left.
TEST_F(ConfinementTest, WorkerStartupEnvironment_SecretsZeroed) {
  const v1::Run run = Run(R"(
name: worker-environ
phases:
  - id: a
    agent: echo
    task: worker-environ
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  const std::string environ = "\n" + run.output();
  // The read worked: an ordinary variable and the secrets' names are there.
  EXPECT_THAT(environ, AllOf(HasSubstr("\nUNRELATED_CANARY=unrelated-canary\n"),
                             HasSubstr("\nOPENAI_API_KEY="), HasSubstr("\nTASKBOARD_TOKEN=")));
  EXPECT_THAT(environ, AllOf(Not(HasSubstr("sk-key-canary")), Not(HasSubstr("worker-token-canary"))));
}

// Without --workspace-root (the worker's default) each task works in a fresh,
// empty directory of its own under the worker's data dir, removed when the
// task ends.
class PerTaskDirectoryTest : public testing::ClusterTest {
 protected:
  PerTaskDirectoryTest() : ClusterTest({.workers = 1, .shared_workspace = false}) {}
};

TEST_F(PerTaskDirectoryTest, EachTaskGetsAnEmptyDirectoryRemovedWhenItEnds) {
  const v1::Run run = Run(R"(
name: per-task
phases:
  - id: first
    agent: echo
    task: write note.txt left by the first task
  - id: second
    agent: echo
    dependsOn: [first]
    task: pwd
  - id: nested
    agent: echo
    dependsOn: [first]
    cwd: sub/dir
    task: pwd
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  ASSERT_EQ(run.tasks_size(), 3);
  std::map<std::string, std::string> outputs;
  for (const v1::Task& task : run.tasks()) outputs[task.phase_id()] = task.output();
  const std::string under = (cluster_.dir() / "worker-data" / "worker-0").string() + "/";
  const std::string first = std::string(absl::StripTrailingAsciiWhitespace(outputs["first"]));
  EXPECT_THAT(first, ::testing::StartsWith(under));
  // The second task's directory is another one, and empty: the first's note
  // is not there (`pwd; ls -A` prints the directory only).
  const std::string second = std::string(absl::StripTrailingAsciiWhitespace(outputs["second"]));
  EXPECT_THAT(second, ::testing::StartsWith(under));
  EXPECT_NE(second, first);
  EXPECT_THAT(second, Not(HasSubstr("note.txt")));
  // A cwd is made inside the task's own directory.
  EXPECT_THAT(outputs["nested"], AllOf(::testing::StartsWith(under), HasSubstr("/sub/dir\n")));
  // Nothing is left behind.
  EXPECT_FALSE(std::filesystem::exists(first)) << first;
  EXPECT_TRUE(std::filesystem::is_empty(under)) << under;
}

}  // namespace
}  // namespace taskboard
