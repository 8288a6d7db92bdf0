// The command agent against real child processes (/bin/sh and coreutils).

#include "worker/agents/command_agent.h"

#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/worker/agents/fake_agent_context.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::taskboard::worker::testing::FakeAgentContext;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class CommandAgentTest : public ::testing::Test {
 protected:
  // An agent `x` running `script` with /bin/sh -c, defined in dir_.
  CommandAgent ShellAgent(const std::string& script, CommandAgentOptions options = {}) {
    AgentDefinition def;
    def.name = "x";
    def.argv = {"/bin/sh", "-c", script};
    def.source = dir_.path() / "x.yaml";
    return CommandAgent(def, options);
  }

  static v1::Assignment Task(const std::string& prompt = "do it") {
    v1::Assignment assignment;
    assignment.set_task_id("summarize[2]");
    assignment.set_run_id("r1");
    assignment.set_root_run_id("r0");
    assignment.set_attempt(2);
    assignment.set_lease_id("l1");
    assignment.set_agent("x");
    assignment.set_prompt(prompt);
    return assignment;
  }

  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }

  std::string ReadFile(const std::string& name) const {
    std::ifstream in(path(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  TempDir dir_;
  FakeAgentContext context_;
};

// Whether `pid` is gone (or a zombie nobody reaps yet) within 5 s.
bool ProcessGone(pid_t pid) {
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (absl::Now() < deadline) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    std::getline(stat, line);
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z') {
      return true;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

TEST_F(CommandAgentTest, Success_StdoutIsTheOutputAndTheEnvelopeIsOnStdin) {
  v1::Assignment task = Task("Read a.cc and summarize");
  task.set_phase_id("summarize");
  task.set_item_index(2);
  task.set_role("map_item");
  (*task.mutable_args()->mutable_fields())["dir"].set_string_value("src");
  v1::DependencyResult* dep = task.add_dependency_results();
  dep->set_id("discover");
  dep->set_output("[]");
  dep->set_success(true);

  AgentOutcome outcome = ShellAgent("cat").Run(task, context_);
  ASSERT_TRUE(outcome.success) << outcome.error;
  absl::StatusOr<Json> envelope = ParseJson(outcome.output);
  ASSERT_THAT(envelope, IsOk());
  EXPECT_EQ(*envelope, Json::parse(R"({
    "task": {"id": "summarize[2]", "run_id": "r1", "root_run_id": "r0", "phase_id": "summarize",
             "item_index": 2, "attempt": 2, "agent": "x", "model": "", "role": "map_item"},
    "prompt": "Read a.cc and summarize",
    "prior_work": {"observations": [], "narrative": "",
                   "meta": {"policy": "", "selected": 0, "available": 0, "tokens_approx": 0,
                            "fallback_reason": ""}},
    "dependency_results": [{"id": "discover", "output": "[]", "success": true}],
    "args": {"dir": "src"}})"));
  EXPECT_EQ(context_.output(), outcome.output);  // streamed as it came
  EXPECT_EQ(outcome.execution.exit_code(), 0);
  EXPECT_EQ(outcome.execution.prompt(), "Read a.cc and summarize");
}

TEST_F(CommandAgentTest, Success_TaskboardVariablesAndAgentEnvAreSet) {
  v1::Assignment task = Task("line one\nline two");
  (*task.mutable_args()->mutable_fields())["n"].set_number_value(3);
  AgentDefinition def;
  def.name = "x";
  def.argv = {"/bin/sh", "-c",
              "printf '%s|%s|%s|%s|%s|%s|%s' \"$TASKBOARD_RUN_ID\" \"$TASKBOARD_TASK_ID\" "
              "\"$TASKBOARD_ATTEMPT\" \"$TASKBOARD_PROMPT\" \"$TASKBOARD_ARGS_JSON\" \"$GREETING\" "
              "\"$TASKBOARD_AGENT_DIR\""};
  def.env = {{"GREETING", "hi"}};
  def.source = dir_.path() / "x.yaml";
  AgentOutcome outcome = CommandAgent(def, {}).Run(task, context_);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, absl::StrCat("r1|summarize[2]|2|line one\nline two|{\"n\":3}|hi|",
                                         dir_.path().string()));
}

// docs/agents-command.md: the level as written, the phase's over the file's.
TEST_F(CommandAgentTest, Thinking_IsInTaskboardThinking) {
  AgentDefinition def;
  def.name = "x";
  def.argv = {"/bin/sh", "-c", R"(printf '%s|%s' "${TASKBOARD_THINKING-unset}" "$0")"};
  def.source = dir_.path() / "x.yaml";
  def.thinking = "low";
  AgentOutcome from_file = CommandAgent(def, {}).Run(Task(), context_);
  ASSERT_TRUE(from_file.success) << from_file.error;
  EXPECT_THAT(from_file.output, StartsWith("low|"));

  v1::Assignment task = Task();
  task.set_thinking("xhigh");
  AgentOutcome from_phase = CommandAgent(def, {}).Run(task, context_);
  ASSERT_TRUE(from_phase.success) << from_phase.error;
  EXPECT_THAT(from_phase.output, StartsWith("xhigh|"));

  def.thinking.clear();
  AgentOutcome unset = CommandAgent(def, {}).Run(Task(), context_);
  ASSERT_TRUE(unset.success) << unset.error;
  EXPECT_THAT(unset.output, StartsWith("unset|"));
}

TEST_F(CommandAgentTest, Tools_SocketVariablesForTheAgentsDirectoryAndBinDirFirstOnPath) {
  std::filesystem::create_directory(dir_.path() / "repo");
  context_.set_tool_environment(
      {{"TASKBOARD_TOOL_SOCKET", "/tmp/x/tools.sock"}, {"TASKBOARD_TASK_TOKEN", "t0k"}});
  CommandAgent agent =
      ShellAgent(R"(printf '%s|%s|%s' "$TASKBOARD_TOOL_SOCKET" "$TASKBOARD_TASK_TOKEN" "$PATH")",
                 {.workdir = dir_.path(), .bin_dir = "/opt/taskboard/bin"});
  v1::Assignment task = Task();
  task.set_cwd("repo");
  AgentOutcome outcome = agent.Run(task, context_);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_THAT(outcome.output, StartsWith("/tmp/x/tools.sock|t0k|/opt/taskboard/bin:"));
  EXPECT_EQ(context_.tool_workdir(), dir_.path() / "repo");
}

TEST_F(CommandAgentTest, WorkingDirectory_TaskCwdRelativeToWorkdir) {
  std::filesystem::create_directory(dir_.path() / "repo");
  CommandAgent agent = ShellAgent("pwd", {.workdir = dir_.path()});
  v1::Assignment task = Task();
  task.set_cwd("repo");
  AgentOutcome outcome = agent.Run(task, context_);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, (dir_.path() / "repo").string() + "\n");
  EXPECT_EQ(agent.Run(Task(), context_).output, dir_.path().string() + "\n");
}

TEST_F(CommandAgentTest, TaskCwdOutsideTheWorkspaceRoot_FailsWithoutRunning) {
  CommandAgent agent = ShellAgent("touch ran; pwd", {.workdir = dir_.path()});
  for (const char* cwd : {"/", "../../..", "/etc"}) {
    v1::Assignment task = Task();
    task.set_cwd(cwd);
    AgentOutcome outcome = agent.Run(task, context_);
    EXPECT_FALSE(outcome.success) << cwd;
    EXPECT_THAT(outcome.error, HasSubstr("command agent 'x': task 'summarize[2]': cwd"));
    EXPECT_THAT(outcome.error, HasSubstr("workspace root"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "ran"));
  EXPECT_FALSE(std::filesystem::exists("/ran"));
}

// The worker's environment holds its scheduler token and API keys; an agent
// gets the basics, what its file names, and the TASKBOARD_* variables.
TEST_F(CommandAgentTest, Environment_ScrubbedToTheBasicsAndWhatTheFileNames) {
  setenv("TASKBOARD_TOKEN", "worker-secret", 1);
  setenv("OPENAI_API_KEY", "sk-canary", 1);
  setenv("UNRELATED_CANARY", "canary", 1);
  setenv("GH_TOKEN", "passed-through", 1);
  AgentDefinition def;
  def.name = "x";
  def.argv = {"/usr/bin/env"};
  def.env = {{"GREETING", "hi"}};
  def.pass_env = {"GH_TOKEN", "NOT_SET_ANYWHERE"};
  def.source = dir_.path() / "x.yaml";
  AgentOutcome outcome = CommandAgent(def, {}).Run(Task(), context_);
  unsetenv("TASKBOARD_TOKEN");
  unsetenv("OPENAI_API_KEY");
  unsetenv("UNRELATED_CANARY");
  unsetenv("GH_TOKEN");
  ASSERT_TRUE(outcome.success) << outcome.error;
  const std::string env = "\n" + outcome.output;  // every variable follows a newline
  EXPECT_THAT(env, Not(HasSubstr("worker-secret")));
  EXPECT_THAT(env, Not(HasSubstr("TASKBOARD_TOKEN=")));
  EXPECT_THAT(env, Not(HasSubstr("OPENAI_API_KEY")));
  EXPECT_THAT(env, Not(HasSubstr("UNRELATED_CANARY")));
  EXPECT_THAT(env, Not(HasSubstr("NOT_SET_ANYWHERE")));
  EXPECT_THAT(env, HasSubstr("\nGH_TOKEN=passed-through\n"));
  EXPECT_THAT(env, HasSubstr("\nGREETING=hi\n"));
  EXPECT_THAT(env, HasSubstr("\nPATH="));
  EXPECT_THAT(env, HasSubstr("\nTASKBOARD_TASK_ID=summarize[2]\n"));
}

TEST_F(CommandAgentTest, NonZeroExit_ErrorHasTheCodeAndLastStderrLine) {
  AgentOutcome outcome =
      ShellAgent("echo partial; echo first >&2; echo 'no such file: a.cc' >&2; exit 3")
          .Run(Task(), context_);
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "command agent 'x' exited with code 3: no such file: a.cc");
  EXPECT_EQ(outcome.output, "partial\n");
  EXPECT_EQ(outcome.execution.exit_code(), 3);
  EXPECT_EQ(outcome.execution.stderr_tail(), "first\nno such file: a.cc\n");
}

TEST_F(CommandAgentTest, StderrTail_KeepsTheLast4KiB) {
  AgentOutcome outcome =
      ShellAgent("head -c 10000 /dev/zero | tr '\\0' a >&2; printf '\\nEND\\n' >&2; exit 1")
          .Run(Task(), context_);
  EXPECT_EQ(outcome.execution.stderr_tail().size(), 4096u);
  EXPECT_THAT(outcome.execution.stderr_tail(), ::testing::EndsWith("aaa\nEND\n"));
  EXPECT_EQ(outcome.error, "command agent 'x' exited with code 1: END");
}

TEST_F(CommandAgentTest, KilledBySignal_SaysWhichSignal) {
  AgentOutcome outcome = ShellAgent("echo dying >&2; kill -9 $$").Run(Task(), context_);
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "command agent 'x' was killed by SIGKILL: dying");
  EXPECT_EQ(outcome.execution.exit_code(), 128 + 9);
}

TEST_F(CommandAgentTest, Timeout_KillsTheWholeProcessGroup) {
  v1::Assignment task = Task();
  task.set_timeout_seconds(1);
  const absl::Time start = absl::Now();
  AgentOutcome outcome =
      ShellAgent("sleep 100 & echo $! > " + path("grandchild") + "; sleep 100").Run(task, context_);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "command agent 'x' timed out after 1s");
  EXPECT_TRUE(outcome.execution.stopped());
  EXPECT_EQ(outcome.execution.stop_reason(), "timeout");
  int grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ReadFile("grandchild"), &grandchild));
  EXPECT_TRUE(ProcessGone(grandchild));
}

TEST_F(CommandAgentTest, Timeout_SigtermIgnored_SigkillAfterTheGracePeriod) {
  v1::Assignment task = Task();
  task.set_timeout_seconds(1);
  // Ignored signals stay ignored across exec, so the sleep ignores SIGTERM too.
  AgentOutcome outcome =
      ShellAgent("trap '' TERM; sleep 100 & echo $! > " + path("grandchild") + "; wait",
                 {.kill_grace = absl::Milliseconds(200)})
          .Run(task, context_);
  EXPECT_EQ(outcome.error, "command agent 'x' timed out after 1s");
  int grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ReadFile("grandchild"), &grandchild));
  EXPECT_TRUE(ProcessGone(grandchild));
}

TEST_F(CommandAgentTest, Cancel_StopsTheRunPromptly) {
  CommandAgent agent =
      ShellAgent("sleep 100 & echo $! > " + path("grandchild") + "; echo started; wait");
  AgentOutcome outcome;
  std::thread run([&] { outcome = agent.Run(Task(), context_); });
  ASSERT_TRUE(context_.WaitForOutput("started\n", absl::Seconds(10)));
  const absl::Time cancelled_at = absl::Now();
  context_.cancel().Cancel("run cancelled by user");
  run.join();
  EXPECT_LT(absl::Now() - cancelled_at, absl::Seconds(2));
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "cancelled: run cancelled by user");
  EXPECT_EQ(outcome.execution.stop_reason(), "cancelled");
  int grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ReadFile("grandchild"), &grandchild));
  EXPECT_TRUE(ProcessGone(grandchild));
}

TEST_F(CommandAgentTest, CancelledBeforeStart_NeverRuns) {
  context_.cancel().Cancel("too late");
  AgentOutcome outcome = ShellAgent("touch " + path("ran")).Run(Task(), context_);
  EXPECT_EQ(outcome.error, "cancelled: too late");
  EXPECT_FALSE(std::filesystem::exists(path("ran")));
}

TEST_F(CommandAgentTest, OutputOverTheCap_Fails) {
  AgentOutcome outcome = ShellAgent("yes", {.max_output_bytes = 1000}).Run(Task(), context_);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, StartsWith("command agent 'x' wrote more than 1000 bytes to stdout"));
  EXPECT_EQ(outcome.execution.stop_reason(), "output_limit");
  EXPECT_LE(outcome.output.size(), 1000u);
}

TEST_F(CommandAgentTest, LeftoverBackgroundProcess_KilledWhenTheAgentExits) {
  const absl::Time start = absl::Now();
  // The background sleep keeps stdout open; the run must not wait for it.
  AgentOutcome outcome = ShellAgent("sleep 100 & echo $! > " + path("grandchild") + "; echo done")
                             .Run(Task(), context_);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, "done\n");
  int grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ReadFile("grandchild"), &grandchild));
  EXPECT_TRUE(ProcessGone(grandchild));
}

TEST_F(CommandAgentTest, CommandThatIgnoresALargeStdin_StillSucceeds) {
  AgentOutcome outcome = ShellAgent("exit 0").Run(Task(std::string(1 << 20, 'p')), context_);
  EXPECT_TRUE(outcome.success) << outcome.error;
}

TEST_F(CommandAgentTest, MissingProgram_FailsWithoutRunning) {
  AgentDefinition def;
  def.name = "ghost";
  def.argv = {(dir_.path() / "nope.sh").string()};
  def.source = dir_.path() / "ghost.yaml";
  AgentOutcome outcome = CommandAgent(def, {}).Run(Task(), context_);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, StartsWith("command agent 'ghost': cannot run '" +
                                        (dir_.path() / "nope.sh").string() + "'"));
}

TEST_F(CommandAgentTest, InvalidUtf8Output_IsReplaced) {
  AgentOutcome outcome = ShellAgent("printf 'ok \\377 end'").Run(Task(), context_);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, "ok \xEF\xBF\xBD end");
}

}  // namespace
}  // namespace taskboard::worker
