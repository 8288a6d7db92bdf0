// The parts of worker/process/worker_setup.h that touch nothing process-wide:
// the workspace root (and TASKBOARD_WORKDIR) and the prefetch queue's size.

#include "worker/process/worker_setup.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(WorkspaceRoot, None_IsEmpty) {
  absl::StatusOr<std::filesystem::path> root = WorkspaceRoot(WorkerOptions{});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_TRUE(root->empty());
}

TEST(WorkspaceRoot, ExistingDirectory_IsMadeAbsolute) {
  testing::TempDir dir;
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path().parent_path());
  WorkerOptions options;
  options.workspace_root = dir.path().filename().string();
  absl::StatusOr<std::filesystem::path> root = WorkspaceRoot(options);
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(*root, dir.path());
}

TEST(WorkspaceRoot, NotADirectory_SaysWhatToDo) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  WorkerOptions options;
  options.workspace_root = (dir.path() / "file").string();
  EXPECT_THAT(WorkspaceRoot(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--workspace-root '" + options.workspace_root +
                                 "' is not a directory: create it, or point the flag at an "
                                 "existing one")));
}

TEST(WorkspaceRoot, OldVariable_UsedOnlyWithoutTheFlag) {
  testing::TempDir old_root;
  testing::TempDir flag_root;
  setenv("TASKBOARD_WORKDIR", old_root.path().c_str(), 1);
  WorkerOptions options;
  absl::StatusOr<std::filesystem::path> from_variable = WorkspaceRoot(options);
  options.workspace_root = flag_root.path().string();
  absl::StatusOr<std::filesystem::path> from_flag = WorkspaceRoot(options);
  unsetenv("TASKBOARD_WORKDIR");
  ASSERT_TRUE(from_variable.ok()) << from_variable.status();
  EXPECT_EQ(*from_variable, old_root.path());
  ASSERT_TRUE(from_flag.ok()) << from_flag.status();
  EXPECT_EQ(*from_flag, flag_root.path());
}

TEST(ResolvePrefetch, Auto_StartsAtTheSlotsAndGrowsToTheMax) {
  WorkerOptions options;
  options.slots = 8;
  options.prefetch_max = 64;
  const PrefetchSetting setting = ResolvePrefetch(options);
  EXPECT_EQ(setting.prefetch, 8);
  EXPECT_EQ(setting.max_prefetch, 64);
  EXPECT_EQ(setting.label, "auto (8 to 64)");
}

TEST(ResolvePrefetch, AutoWithMaxBelowTheSlots_IsFixedAtTheSlots) {
  WorkerOptions options;
  options.slots = 16;
  options.prefetch_max = 4;
  const PrefetchSetting setting = ResolvePrefetch(options);
  EXPECT_EQ(setting.prefetch, 16);
  EXPECT_EQ(setting.max_prefetch, 16);
  EXPECT_EQ(setting.label, "auto (16 to 16)");
}

TEST(ResolvePrefetch, Number_IsFixed) {
  WorkerOptions options;
  options.prefetch = "3";
  const PrefetchSetting setting = ResolvePrefetch(options);
  EXPECT_EQ(setting.prefetch, 3);
  EXPECT_EQ(setting.max_prefetch, 0);
  EXPECT_EQ(setting.label, "3");
}

}  // namespace
}  // namespace taskboard::worker
