// With per-task directories (the worker's default), a noop task makes none:
// it touches no files, so it runs even where its directory could not be
// made. Its cwd is still checked, and one that leaves the workspace fails
// the task as it would for any agent.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/session_harness.h"
#include "worker/agents/task_workspace.h"
#include "worker/session/session.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class NoopTaskDirectoryTest : public SessionHarness {
 protected:
  void SetUp() override {
    // A command agent, which does get a directory: the control.
    std::ofstream(dir_.path() / "pwd.yaml") << "command: [/bin/sh, -c, pwd]\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({}));
    absl::StatusOr<TaskWorkspaces> workspaces = TaskWorkspaces::PerTask(data_dir_, "w1");
    ASSERT_THAT(workspaces, IsOk());
    SessionOptions options;
    options.workspaces = *workspaces;
    StartSession(options);
    stream_ = Welcome(0);
    ASSERT_NE(stream_, nullptr);
  }

  // Where the task of `lease` would get its directory: a regular file there
  // makes creating it fail.
  std::filesystem::path Block(const std::string& lease) {
    const std::filesystem::path path = data_dir_ / "w1" / lease;
    std::ofstream(path) << "not a directory";
    return path;
  }

  v1::TaskResult Run(const std::string& agent, const std::string& lease,
                     const std::string& cwd = "") {
    v1::ConnectResponse message = Assign(agent, lease, "hello");
    message.mutable_assignment()->set_cwd(cwd);
    stream_->Send(message);
    absl::optional<v1::ConnectRequest> reply;
    while ((reply = stream_->Next()) && !reply->has_task_result()) {
    }
    EXPECT_TRUE(reply.has_value()) << "no result for " << lease;
    Expect(stream_, v1::ConnectRequest::kCredits);
    return reply ? reply->task_result() : v1::TaskResult();
  }

  std::vector<std::filesystem::path> Entries() const {
    std::vector<std::filesystem::path> entries;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir_ / "w1")) {
      entries.push_back(entry.path());
    }
    return entries;
  }

  const std::filesystem::path data_dir_ = dir_.path() / "data";
  FakeStream* stream_ = nullptr;
};

TEST_F(NoopTaskDirectoryTest, CommandAgent_WhereItsDirectoryCannotBeMade_Fails) {
  Block("l1");
  v1::TaskResult result = Run("pwd", "l1");
  EXPECT_FALSE(result.success());
  EXPECT_THAT(result.error(), HasSubstr("cannot create the task's directory"));
}

TEST_F(NoopTaskDirectoryTest, Noop_MakesNoDirectory) {
  const std::filesystem::path blocked = Block("l1");
  v1::TaskResult result = Run("noop", "l1");
  EXPECT_TRUE(result.success()) << result.error();
  EXPECT_EQ(result.output(), "hello");
  // Neither made nor removed.
  EXPECT_TRUE(std::filesystem::is_regular_file(blocked));

  const std::filesystem::path blocked_too = Block("l2");
  result = Run("noop", "l2", /*cwd=*/"repo/src");
  EXPECT_TRUE(result.success()) << result.error();
  EXPECT_TRUE(std::filesystem::is_regular_file(blocked_too));
}

TEST_F(NoopTaskDirectoryTest, Noop_CwdWithDotDot_FailsWithTheCwdErrorAsACommandAgentDoes) {
  v1::TaskResult noop = Run("noop", "l1", /*cwd=*/"../x");
  EXPECT_FALSE(noop.success());
  EXPECT_THAT(noop.error(),
              AllOf(HasSubstr("task 'task-l1'"), HasSubstr("cwd '../x' contains '..'"),
                    HasSubstr("--workspace-root")));
  EXPECT_THAT(Entries(), IsEmpty());

  v1::TaskResult command = Run("pwd", "l2", /*cwd=*/"../x");
  EXPECT_FALSE(command.success());
  EXPECT_EQ(noop.error().substr(noop.error().find("cwd")),
            command.error().substr(command.error().find("cwd")));
}

TEST_F(NoopTaskDirectoryTest, Noop_AbsoluteCwd_FailsWithTheCwdError) {
  v1::TaskResult result = Run("noop", "l1", /*cwd=*/"/etc");
  EXPECT_FALSE(result.success());
  EXPECT_THAT(result.error(),
              AllOf(HasSubstr("task 'task-l1'"), HasSubstr("cwd '/etc' is an absolute path")));
  EXPECT_THAT(Entries(), IsEmpty());
}

// The check Session uses for such agents, directly.
TEST(TaskWorkspacesCheck, PerTask_ChecksTheCwdAndMakesNothing) {
  ::taskboard::testing::TempDir dir;
  absl::StatusOr<TaskWorkspaces> workspaces = TaskWorkspaces::PerTask(dir.path(), "w1");
  ASSERT_THAT(workspaces, IsOk());
  v1::Assignment assignment;
  assignment.set_task_id("t1");
  assignment.set_lease_id("l1");
  assignment.set_cwd("repo");
  absl::StatusOr<std::filesystem::path> checked = workspaces->Check(assignment);
  ASSERT_THAT(checked, IsOk());
  EXPECT_TRUE(checked->empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() / "w1"));

  assignment.set_cwd("repo/../../x");
  EXPECT_THAT(workspaces->Check(assignment),
              ::taskboard::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("task 't1': cwd 'repo/../../x'")));
}

}  // namespace
}  // namespace taskboard::worker
