// Agents confined to their task, across real processes (issue 13): a flow
// cannot point an agent at `/`, a command agent does not see the worker's
// token, keys or other variables, and `taskboard tool` cannot reach a tool
// outside the agent's or the phase's allow-list. And without races (issue
// 33): an agent that swaps a directory for a symlink while calling the file
// tools never gets a file from outside, and nothing an agent starts, in a
// new session or double-forked, outlives its task.

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
#include "tests/testing/marked_processes.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;
using testing::StatusIs;

// The integration agents plus:
// - `confined`, which runs the same script, may call read_file only and gets
//   one variable of the worker's;
// - `racer`, which keeps swapping the directory `sub` of its task for a
//   symlink to a directory outside (holding files that say SECRET) while it
//   calls read_file and list_files on it PROMPT times each;
// - `escaper`, which starts `setsid` sessions and double-forked daemons
//   marked CONFINE_MARKER=escapee-RUN_ID: twice and exits (`once`), in a loop
//   until stopped (`forever`), or twice and then SIGKILLs its reaper
//   (`kill-reaper`).
std::string AgentsDir() {
  return testing::IntegrationAgentsWith({{"confined.yaml", R"(name: confined
command: ["./script.sh"]
tools: [read_file]
passEnv: [CONFINEMENT_PASSED]
env: {CONFINEMENT_LITERAL: from-the-agent-file}
)"},
                                         {"racer.yaml", R"(name: racer
shell: true
tools: [read_file, list_files]
command: |
  outside=$(mktemp -d)
  echo "SECRET outside the task" > "$outside/file.txt"
  echo SECRET > "$outside/secret-name.txt"
  mkdir sub && echo inside > sub/file.txt
  ln -s "$outside" swap
  # `sub`: the directory, nothing, the symlink, nothing, the directory...
  (while :; do mv -T sub tmp; mv -T swap sub; mv -T sub swap; mv -T tmp sub; done) 2>/dev/null &
  i=0
  while [ "$i" -lt "$TASKBOARD_PROMPT" ]; do
    taskboard tool read_file '{"path": "sub/file.txt"}' 2>&1; echo
    taskboard tool list_files '{"path": "sub"}' 2>&1; echo
    i=$((i + 1))
  done
  kill $!
  rm -rf "$outside"
)"},
                                         {"escaper.yaml", R"(name: escaper
shell: true
command: |
  export CONFINE_MARKER="escapee-$TASKBOARD_RUN_ID"
  escape() {
    setsid sh -c 'exec sleep 1000' </dev/null >/dev/null 2>&1 &
    sh -c 'sleep 1000 &'
  }
  case "$TASKBOARD_PROMPT" in
    once) escape; escape; echo escaped ;;
    forever) while :; do escape; sleep 0.05; done ;;
    kill-reaper) escape; escape; kill -9 $PPID; sleep 1000 ;;
  esac
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
  EXPECT_THAT(environ,
              AllOf(Not(HasSubstr("sk-key-canary")), Not(HasSubstr("worker-token-canary"))));
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

// Races and escapes on one worker (issue 33): each runs for a bounded time
// and then completes a normal run on the same worker process.
class ConfinementRaceTest : public testing::ClusterTest {
 protected:
  ConfinementRaceTest() : ClusterTest({.workers = 1, .agents_dir = AgentsDir()}) {}

  // A run of the escaper that ended as `expected`; none of what it started
  // is alive (polled: the worker ends them before it reports, but the test
  // does not rely on timing), and the worker completes a normal run.
  void ExpectNothingEscaped(const std::string& run_id) {
    const std::string marker = "CONFINE_MARKER=escapee-" + run_id;
    const std::vector<pid_t> left =
        testing::WaitUntilNoProcessWithEnvironment(marker, absl::Seconds(10));
    EXPECT_TRUE(left.empty()) << "still running:" << testing::DescribeProcesses(left);
    ExpectStillServing();
    EXPECT_TRUE(cluster_.worker(0)->Running()) << cluster_.Logs();
  }

  absl::StatusOr<std::string> SubmitEscaper(const std::string& mode,
                                            const std::string& extra = "") {
    return cluster_.Submit(absl::StrCat(R"({"name": "escape", "phases": [{"id": "a", )",
                                        R"("agent": "escaper", "task": ")", mode, R"(")", extra,
                                        "}]}"));
  }
};

TEST_F(ConfinementRaceTest, BuiltinTools_DirectorySwappedForSymlinkToOutside_NeverReadOutside) {
  const v1::Run run = Run(R"(
name: race
toolCache: {tools: {read_file: false, list_files: false}}
phases:
  - id: a
    agent: racer
    task: "150"
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_THAT(run.output(), Not(HasSubstr("SECRET")));
  EXPECT_THAT(run.output(), Not(HasSubstr("secret-name")));
  // The race was live: calls found the directory and calls found the link.
  EXPECT_THAT(run.output(), HasSubstr(R"("content":"inside\n")"));
  EXPECT_THAT(run.output(), HasSubstr("is outside the task's working directory"));
  ExpectStillServing();
}

TEST_F(ConfinementRaceTest, CommandAgent_SetsidAndDoubleForkThenCompletes_NothingSurvives) {
  absl::StatusOr<std::string> run_id = SubmitEscaper("once");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
  EXPECT_EQ(run->output(), "escaped\n");
  ExpectNothingEscaped(*run_id);
}

TEST_F(ConfinementRaceTest, CommandAgent_EscapingInALoopUntilTimeout_NothingSurvives) {
  absl::StatusOr<std::string> run_id = SubmitEscaper("forever", R"(, "timeoutSeconds": 2)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  ASSERT_EQ(run->tasks_size(), 1);
  EXPECT_THAT(run->tasks(0).error(), HasSubstr("timed out after 2s"));
  ExpectNothingEscaped(*run_id);
}

TEST_F(ConfinementRaceTest, CommandAgent_EscapingInALoopUntilCancelled_NothingSurvives) {
  absl::StatusOr<std::string> run_id = SubmitEscaper("forever");
  ASSERT_THAT(run_id.status(), IsOk());
  // Cancel once escapes exist, not after a guessed sleep.
  ASSERT_TRUE(testing::WaitForProcessesWithEnvironment("CONFINE_MARKER=escapee-" + *run_id, 6,
                                                       absl::Seconds(20)))
      << cluster_.Logs();
  v1::CancelRunRequest cancel;
  cancel.set_run_id(*run_id);
  v1::CancelRunResponse cancelled;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_.client().CancelRun(&context, cancel, &cancelled).ok());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_CANCELLED) << cluster_.Logs();
  ExpectNothingEscaped(*run_id);
}

TEST_F(ConfinementRaceTest, CommandAgent_KillsItsReaper_NothingSurvivesAndNoZombies) {
  absl::StatusOr<std::string> run_id = SubmitEscaper("kill-reaper");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  ASSERT_EQ(run->tasks_size(), 1);
  EXPECT_THAT(run->tasks(0).error(), HasSubstr("was killed by SIGKILL"));
  ExpectNothingEscaped(*run_id);
  // The worker reaped what it inherited: no zombie child is left.
  const pid_t worker = cluster_.worker(0)->pid();
  EXPECT_THAT(testing::ZombieChildrenOf(worker), ::testing::IsEmpty());
}

}  // namespace
}  // namespace taskboard
