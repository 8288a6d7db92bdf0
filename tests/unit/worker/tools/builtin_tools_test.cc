// read_file and list_files against a real directory tree, with each way of
// opening paths beneath it: openat2 (skipped where the kernel lacks it) and
// the O_NOFOLLOW walk that replaces it there.

#include "worker/tools/builtin_tools.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>

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
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class BuiltinToolsTest : public ::testing::TestWithParam<BeneathResolver> {
 protected:
  BuiltinToolsTest() { options_.resolver = GetParam(); }

  void SetUp() override {
    if (GetParam() == BeneathResolver::kOpenat2 && !KernelHasOpenat2()) {
      GTEST_SKIP() << "this kernel has no openat2 (Linux < 5.6); the walk covers it";
    }
    std::filesystem::create_directories(root() / "src" / "lib");
    std::filesystem::create_directories(root() / ".git");
    Write("README.md", "hello\n");
    Write("src/main.cc", "int main() {}\n");
    Write("src/lib/util.h", "#pragma once\n");
    Write(".git/HEAD", "ref: main\n");
    Write("../secret.txt", "outside\n");
  }

  std::filesystem::path root() const { return dir_.path() / "work"; }
  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(root() / relative, std::ios::binary) << text;
  }

  absl::StatusOr<Json> Call(const std::unique_ptr<Tool>& tool, const std::string& args) {
    ToolContext context{root(), &cancel_};
    absl::StatusOr<std::string> result = tool->Execute(args, context);
    if (!result.ok()) return result.status();
    return ParseJson(*result);
  }

  TempDir dir_;
  CancelToken cancel_;
  BuiltinToolOptions options_;
};

TEST_P(BuiltinToolsTest, ReadFile_ReturnsPathContentAndBytes) {
  absl::StatusOr<Json> result = Call(NewReadFileTool(options_), R"({"path":"src/main.cc"})");
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(*result,
            Json::parse(R"({"path":"src/main.cc","content":"int main() {}\n","bytes":14})"));
}

TEST_P(BuiltinToolsTest, ReadFile_AbsolutePathInside_Allowed) {
  absl::StatusOr<Json> result =
      Call(NewReadFileTool(options_), DumpJson({{"path", (root() / "README.md").string()}}));
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ((*result)["path"], "README.md");
}

TEST_P(BuiltinToolsTest, ReadFile_DotDotEscape_Refused) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"src/../../secret.txt"})"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("is outside the task's working directory")));
}

TEST_P(BuiltinToolsTest, ReadFile_AbsolutePathOutside_Refused) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"/etc/passwd"})"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("'/etc/passwd'")));
}

TEST_P(BuiltinToolsTest, ReadFile_SymlinkPointingOutside_Refused) {
  std::filesystem::create_symlink(dir_.path() / "secret.txt", root() / "link.txt");
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"link.txt"})"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

// The attacks of issue 13: the worker's environment (API keys, token) through
// /proc, files above the task's directory, and a link planted inside it.
TEST_P(BuiltinToolsTest, ReadFile_ProcSelfEnviron_Refused) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"/proc/self/environ"})"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("path '/proc/self/environ' is outside the task's working "
                                 "directory")));
}

TEST_P(BuiltinToolsTest, ReadFile_DotDotToEtcPasswd_Refused) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"../../etc/passwd"})"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("tools only reach files inside it; give a path relative to it")));
}

TEST_P(BuiltinToolsTest, ReadFile_SymlinkedDirectoryPointingOutside_Refused) {
  std::filesystem::create_directory_symlink("/proc/self", root() / "self");
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"self/environ"})"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("'self/environ'")));
}

TEST_P(BuiltinToolsTest, ListFiles_SymlinkedDirectoryPointingOutside_Refused) {
  std::filesystem::create_directory_symlink("/etc", root() / "etc");
  EXPECT_THAT(Call(NewListFilesTool(options_), R"({"path":"etc"})"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_P(BuiltinToolsTest, ReadFile_OverTheSizeCap_ClearError) {
  options_.read_file_max_bytes = 10;
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"src/main.cc"})"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("file 'src/main.cc' is 14 bytes, over read_file's limit of 10")));
}

TEST_P(BuiltinToolsTest, ReadFile_MissingFile_NotFound) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"nope.txt"})"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("use list_files")));
}

TEST_P(BuiltinToolsTest, ReadFile_Directory_PointsToListFiles) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"src"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'src' is a directory")));
}

TEST_P(BuiltinToolsTest, ReadFile_BinaryFile_Refused) {
  Write("blob.bin", std::string("\xff\xfe\x00", 3));
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"blob.bin"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not UTF-8 text")));
}

TEST_P(BuiltinToolsTest, ReadFile_BadArguments_NameTheArgument) {
  EXPECT_THAT(
      Call(NewReadFileTool(options_), R"({})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("argument 'path' is required")));
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":1})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be a string")));
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"pth":"a"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown argument 'pth'")));
}

TEST_P(BuiltinToolsTest, ListFiles_RecursiveSortedWithoutGit) {
  absl::StatusOr<Json> result = Call(NewListFilesTool(options_), "{}");
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ((*result)["path"], ".");
  EXPECT_THAT((*result)["files"].get<std::vector<std::string>>(),
              ElementsAre("README.md", "src/lib/util.h", "src/main.cc"));
  EXPECT_EQ((*result)["truncated"], false);
}

TEST_P(BuiltinToolsTest, ListFiles_PathAndGlob) {
  absl::StatusOr<Json> result = Call(NewListFilesTool(options_), R"({"path":"src","glob":"*.h"})");
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ((*result)["path"], "src");
  EXPECT_THAT((*result)["files"].get<std::vector<std::string>>(), ElementsAre("lib/util.h"));
}

TEST_P(BuiltinToolsTest, ListFiles_OverTheEntryCap_Truncated) {
  options_.list_files_max_entries = 2;
  absl::StatusOr<Json> result = Call(NewListFilesTool(options_), "{}");
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ((*result)["files"].size(), 2u);
  EXPECT_EQ((*result)["truncated"], true);
}

TEST_P(BuiltinToolsTest, ListFiles_OutsideTheWorkdir_Refused) {
  EXPECT_THAT(Call(NewListFilesTool(options_), R"({"path":".."})"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_P(BuiltinToolsTest, ReadFile_SymlinkInsidePointingInside_ReadsTheTarget) {
  std::filesystem::create_symlink("src/main.cc", root() / "main-link.cc");
  std::filesystem::create_directory_symlink("src/lib", root() / "lib");
  absl::StatusOr<Json> through_file = Call(NewReadFileTool(options_), R"({"path":"main-link.cc"})");
  ASSERT_THAT(through_file, IsOk());
  EXPECT_EQ((*through_file)["content"], "int main() {}\n");
  absl::StatusOr<Json> through_dir = Call(NewReadFileTool(options_), R"({"path":"lib/util.h"})");
  ASSERT_THAT(through_dir, IsOk());
  EXPECT_EQ((*through_dir)["path"], "lib/util.h");
}

TEST_P(BuiltinToolsTest, ReadFile_Fifo_RefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(mkfifo((root() / "pipe").c_str(), 0600), 0);
  EXPECT_THAT(
      Call(NewReadFileTool(options_), R"({"path":"pipe"})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'pipe' is not a regular file")));
}

TEST_P(BuiltinToolsTest, ReadFile_PathThroughAFile_NotFound) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"README.md/x"})"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("file 'README.md/x' does not exist in the task's working "
                                 "directory: use list_files")));
}

TEST_P(BuiltinToolsTest, ReadFile_TheDirectoryThroughDotDot_IsADirectory) {
  EXPECT_THAT(Call(NewReadFileTool(options_), R"({"path":"src/.."})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'.' is a directory")));
}

TEST_P(BuiltinToolsTest, ListFiles_SymlinksToFiles_ListedOnlyWhenTheyLeadInside) {
  std::filesystem::create_symlink("README.md", root() / "readme-link");
  std::filesystem::create_symlink(dir_.path() / "secret.txt", root() / "secret-link");
  std::filesystem::create_directory_symlink("src", root() / "src-link");
  absl::StatusOr<Json> result = Call(NewListFilesTool(options_), "{}");
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT((*result)["files"].get<std::vector<std::string>>(),
              ElementsAre("README.md", "readme-link", "src/lib/util.h", "src/main.cc"));
}

TEST_P(BuiltinToolsTest, ListFiles_AFile_NotADirectory) {
  EXPECT_THAT(Call(NewListFilesTool(options_), R"({"path":"README.md"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'README.md' is not a directory: use read_file")));
  EXPECT_THAT(
      Call(NewListFilesTool(options_), R"({"path":"nope"})"),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("directory 'nope' does not exist in the task's working directory")));
}

std::string ResolverName(const ::testing::TestParamInfo<BeneathResolver>& info) {
  return info.param == BeneathResolver::kOpenat2 ? "Openat2" : "Walk";
}

INSTANTIATE_TEST_SUITE_P(Resolvers, BuiltinToolsTest,
                         ::testing::Values(BeneathResolver::kOpenat2, BeneathResolver::kWalk),
                         ResolverName);

}  // namespace
}  // namespace taskboard::worker
