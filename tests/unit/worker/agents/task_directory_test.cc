// A task's directory stays inside the worker's workspace root: the worker
// checks the cwd again even though the scheduler validated the flow.

#include "worker/agents/task_directory.h"

#include <filesystem>

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
using ::testing::HasSubstr;

class TaskDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(root() / "repo" / "src"); }

  std::filesystem::path root() const {
    return std::filesystem::canonical(dir_.path()) / "workspace";
  }

  static v1::Assignment WithCwd(const std::string& cwd) {
    v1::Assignment assignment;
    assignment.set_task_id("audit");
    assignment.set_cwd(cwd);
    return assignment;
  }

  // The directory of a task with `cwd`, expecting success.
  std::filesystem::path Resolved(const std::string& cwd) const {
    absl::StatusOr<std::filesystem::path> directory = TaskDirectory(WithCwd(cwd), root());
    EXPECT_THAT(directory, IsOk());
    return directory.ok() ? *directory : std::filesystem::path();
  }

  TempDir dir_;
};

TEST_F(TaskDirectoryTest, NoCwd_TheRoot) { EXPECT_EQ(Resolved(""), root()); }

TEST_F(TaskDirectoryTest, RelativeCwd_InsideTheRoot) {
  EXPECT_EQ(Resolved("repo/src"), root() / "repo" / "src");
  EXPECT_EQ(Resolved("./repo"), root() / "repo");
}

TEST_F(TaskDirectoryTest, FilesystemRoot_RefusedNamingTheTask) {
  EXPECT_THAT(TaskDirectory(WithCwd("/"), root()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("task 'audit': cwd '/' is an absolute path"),
                             HasSubstr("relative to the worker's workspace root"))));
}

TEST_F(TaskDirectoryTest, DotDot_Refused) {
  EXPECT_THAT(TaskDirectory(WithCwd("../../.."), root()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("contains '..'")));
}

TEST_F(TaskDirectoryTest, SymlinkPointingOutside_Refused) {
  std::filesystem::create_directory_symlink("/", root() / "escape");
  EXPECT_THAT(TaskDirectory(WithCwd("escape"), root()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("task 'audit': cwd 'escape' resolves outside the worker's "
                                 "workspace root")));
  EXPECT_THAT(TaskDirectory(WithCwd("escape/etc"), root()),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_F(TaskDirectoryTest, SymlinkInsideTheRoot_ResolvedToItsTarget) {
  std::filesystem::create_directory_symlink(root() / "repo" / "src", root() / "src");
  EXPECT_EQ(Resolved("src"), root() / "repo" / "src");
}

}  // namespace
}  // namespace taskboard::worker
