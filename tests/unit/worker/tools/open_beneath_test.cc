// OpenBeneath with each resolver: openat2 (skipped where the kernel lacks
// it) and the O_NOFOLLOW walk that replaces it there. Both must give the
// same answers: symlinks and `..` are followed only while they stay beneath
// the directory.

#include "worker/tools/open_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::TempDir;

std::string NameOf(const ::testing::TestParamInfo<BeneathResolver>& info) {
  return info.param == BeneathResolver::kOpenat2 ? "Openat2" : "Walk";
}

class OpenBeneathTest : public ::testing::TestWithParam<BeneathResolver> {
 protected:
  void SetUp() override {
    if (GetParam() == BeneathResolver::kOpenat2 && !KernelHasOpenat2()) {
      GTEST_SKIP() << "this kernel has no openat2 (Linux < 5.6); the walk covers it";
    }
    std::filesystem::create_directories(root() / "a" / "b");
    Write("top.txt", "top");
    Write("a/b/deep.txt", "deep");
    Write("a/mid.txt", "mid");
    Write("../outside.txt", "outside");
    root_fd_ = open(root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }
  void TearDown() override {
    if (root_fd_ >= 0) close(root_fd_);
  }

  std::filesystem::path root() const { return dir_.path() / "root"; }
  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(root() / relative) << text;
  }
  void Link(const std::string& target, const std::string& relative) {
    std::filesystem::create_symlink(target, root() / relative);
  }

  // The text of the file `relative` opens to, or "errno N".
  std::string Read(const std::string& relative) {
    const int fd = OpenBeneath(root_fd_, relative, O_RDONLY, GetParam());
    if (fd < 0) return "errno " + std::to_string(-fd);
    char buffer[64];
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    close(fd);
    return n < 0 ? "read failed" : std::string(buffer, static_cast<size_t>(n));
  }
  int Error(const std::string& relative, int flags = O_RDONLY) {
    const int fd = OpenBeneath(root_fd_, relative, flags, GetParam());
    if (fd >= 0) close(fd);
    return fd >= 0 ? 0 : -fd;
  }

  TempDir dir_;
  int root_fd_ = -1;
};

TEST_P(OpenBeneathTest, PlainPaths_Open) {
  EXPECT_EQ(Read("top.txt"), "top");
  EXPECT_EQ(Read("a/b/deep.txt"), "deep");
  EXPECT_EQ(Read("./a//b/./deep.txt"), "deep");
  EXPECT_EQ(Read("a/../top.txt"), "top");
}

TEST_P(OpenBeneathTest, TheDirectoryItself_Opens) {
  for (const std::string path : {"", ".", "a/.."}) {
    const int fd = OpenBeneath(root_fd_, path, O_RDONLY | O_DIRECTORY, GetParam());
    ASSERT_GE(fd, 0) << path;
    struct stat opened, expected;
    fstat(fd, &opened);
    stat(root().c_str(), &expected);
    close(fd);
    EXPECT_EQ(opened.st_ino, expected.st_ino) << path;
  }
}

TEST_P(OpenBeneathTest, DotDotOrAbsolute_LeavesTheDirectory_Exdev) {
  EXPECT_EQ(Error("../outside.txt"), EXDEV);
  EXPECT_EQ(Error("a/../../outside.txt"), EXDEV);
  EXPECT_EQ(Error((dir_.path() / "outside.txt").string()), EXDEV);
  EXPECT_EQ(Error((root() / "top.txt").string()), EXDEV);  // absolute, even inside
}

TEST_P(OpenBeneathTest, SymlinksInside_Followed) {
  Link("top.txt", "to-top");
  Link("a/b", "to-b");
  Link("../../top.txt", "a/b/up-to-top");
  Link("to-top", "chain");
  EXPECT_EQ(Read("to-top"), "top");
  EXPECT_EQ(Read("to-b/deep.txt"), "deep");
  EXPECT_EQ(Read("a/b/up-to-top"), "top");
  EXPECT_EQ(Read("chain"), "top");
  EXPECT_EQ(Read("to-b/../mid.txt"), "mid");  // `..` of the link's target a/b is a/
}

TEST_P(OpenBeneathTest, SymlinksPointingOut_Exdev) {
  Link((dir_.path() / "outside.txt").string(), "absolute");
  Link("../outside.txt", "relative");
  Link("../../../outside.txt", "a/b/deep-relative");
  Link("/proc/self", "proc");
  Link(dir_.path().string(), "dir-outside");
  EXPECT_EQ(Error("absolute"), EXDEV);
  EXPECT_EQ(Error("relative"), EXDEV);
  EXPECT_EQ(Error("a/b/deep-relative"), EXDEV);
  EXPECT_EQ(Error("proc/environ"), EXDEV);
  EXPECT_EQ(Error("dir-outside/outside.txt"), EXDEV);
  EXPECT_EQ(Error("dir-outside", O_RDONLY | O_DIRECTORY), EXDEV);
}

TEST_P(OpenBeneathTest, SymlinkLoop_Eloop) {
  Link("loop-b", "loop-a");
  Link("loop-a", "loop-b");
  EXPECT_EQ(Error("loop-a"), ELOOP);
}

TEST_P(OpenBeneathTest, MissingOrThroughAFile_EnoentOrEnotdir) {
  EXPECT_EQ(Error("nope.txt"), ENOENT);
  EXPECT_EQ(Error("a/nope/deep.txt"), ENOENT);
  EXPECT_EQ(Error("top.txt/x"), ENOTDIR);
  EXPECT_EQ(Error("top.txt", O_RDONLY | O_DIRECTORY), ENOTDIR);
}

TEST_P(OpenBeneathTest, OPathOfASymlinkInside_OpensTheTarget) {
  Link("a/b/deep.txt", "to-deep");
  const int fd = OpenBeneath(root_fd_, "to-deep", O_PATH, GetParam());
  ASSERT_GE(fd, 0);
  struct stat status;
  fstat(fd, &status);
  close(fd);
  EXPECT_TRUE(S_ISREG(status.st_mode));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, OpenBeneathTest,
                         ::testing::Values(BeneathResolver::kOpenat2, BeneathResolver::kWalk),
                         NameOf);

}  // namespace
}  // namespace taskboard::worker
