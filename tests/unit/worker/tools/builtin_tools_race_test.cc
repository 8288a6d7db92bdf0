// read_file and list_files while another thread keeps swapping a directory
// of the task's tree for a symlink to a directory outside it (one atomic
// renameat2 RENAME_EXCHANGE at a time). Checking a path and then opening it
// by name lost this race about once in ten calls under this swapper (first
// after 514 calls in one try); opening beneath a handle must never return
// what is outside, with either resolver. Each test runs a bounded number of
// calls (or seconds), checks that both outcomes were seen (the race was
// live), and then makes an ordinary call on the same tools.

#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/open_beneath.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kMaxCalls = 20'000;
constexpr absl::Duration kMaxTime = absl::Seconds(10);

class BuiltinToolsRaceTest : public ::testing::TestWithParam<BeneathResolver> {
 protected:
  BuiltinToolsRaceTest() { options_.resolver = GetParam(); }

  void SetUp() override {
    if (GetParam() == BeneathResolver::kOpenat2 && !KernelHasOpenat2()) {
      GTEST_SKIP() << "this kernel has no openat2 (Linux < 5.6); the walk covers it";
    }
    std::filesystem::create_directories(root() / "sub");
    std::ofstream(root() / "sub" / "file.txt") << "inside";
    std::filesystem::create_directories(outside());
    std::ofstream(outside() / "file.txt") << "SECRET outside the task";
    std::ofstream(outside() / "secret-name.txt") << "SECRET";
    std::filesystem::create_directory_symlink(outside(), root() / "swap");
    swapper_ = std::thread([this] {
      // `sub` is a directory, then the symlink, then the directory again...
      while (!stop_.load()) {
        renameat2(AT_FDCWD, (root() / "sub").c_str(), AT_FDCWD, (root() / "swap").c_str(),
                  RENAME_EXCHANGE);
      }
    });
  }
  void TearDown() override {
    stop_.store(true);
    if (swapper_.joinable()) swapper_.join();
  }

  std::filesystem::path root() const { return dir_.path() / "work"; }
  std::filesystem::path outside() const { return dir_.path() / "outside"; }

  // Calls `tool` with `args` kMaxCalls times (or for kMaxTime), counting
  // results that hold `inside` (the inside file or listing) and refusals.
  // Fails the test on any result holding "SECRET".
  void Race(const std::unique_ptr<Tool>& tool, const std::string& args, const std::string& inside) {
    ToolContext context{root(), &cancel_};
    int insides = 0, refusals = 0, calls = 0;
    const absl::Time deadline = absl::Now() + kMaxTime;
    for (; calls < kMaxCalls && absl::Now() < deadline; ++calls) {
      absl::StatusOr<std::string> result = tool->Execute(args, context);
      const std::string text = result.ok() ? *result : std::string(result.status().message());
      ASSERT_THAT(text, Not(HasSubstr("SECRET"))) << "after " << calls << " calls";
      if (result.ok() && absl::StrContains(text, inside)) ++insides;
      if (!result.ok()) ++refusals;
    }
    // The race was live: both the directory and the link were seen.
    EXPECT_GT(insides, 0) << calls << " calls";
    EXPECT_GT(refusals, 0) << calls << " calls";
  }

  // After the race, with the tree left still: an ordinary call works.
  void ExpectOrdinaryCallWorks(const std::unique_ptr<Tool>& tool, const std::string& args,
                               const std::string& expected) {
    stop_.store(true);
    swapper_.join();
    if (!std::filesystem::is_directory(root() / "sub") ||
        std::filesystem::is_symlink(root() / "sub")) {
      renameat2(AT_FDCWD, (root() / "sub").c_str(), AT_FDCWD, (root() / "swap").c_str(),
                RENAME_EXCHANGE);
    }
    ToolContext context{root(), &cancel_};
    absl::StatusOr<std::string> result = tool->Execute(args, context);
    ASSERT_THAT(result.status(), IsOk());
    EXPECT_THAT(*result, HasSubstr(expected));
  }

  TempDir dir_;
  CancelToken cancel_;
  BuiltinToolOptions options_;
  std::atomic<bool> stop_{false};
  std::thread swapper_;
};

TEST_P(BuiltinToolsRaceTest, ReadFile_SymlinkSwappedToOutside_NeverReadsOutside) {
  std::unique_ptr<Tool> read_file = NewReadFileTool(options_);
  Race(read_file, R"({"path":"sub/file.txt"})", R"("content":"inside")");
  ExpectOrdinaryCallWorks(read_file, R"({"path":"sub/file.txt"})", R"("content":"inside")");
}

TEST_P(BuiltinToolsRaceTest, ListFiles_SymlinkSwappedToOutside_NeverListsOutside) {
  std::unique_ptr<Tool> list_files = NewListFilesTool(options_);
  Race(list_files, R"({"path":"sub"})", R"("files":["file.txt"])");
  ExpectOrdinaryCallWorks(list_files, R"({"path":"sub"})", R"("files":["file.txt"])");
}

TEST_P(BuiltinToolsRaceTest, ListFiles_WholeTreeWhileSwapping_NeverEntersTheLink) {
  std::unique_ptr<Tool> list_files = NewListFilesTool(options_);
  ToolContext context{root(), &cancel_};
  int listed_inside = 0;
  const absl::Time deadline = absl::Now() + kMaxTime;
  for (int calls = 0; calls < 2'000 && absl::Now() < deadline; ++calls) {
    absl::StatusOr<std::string> result = list_files->Execute("{}", context);
    ASSERT_THAT(result.status(), IsOk());
    ASSERT_THAT(*result, Not(HasSubstr("secret-name"))) << "after " << calls << " calls";
    if (absl::StrContains(*result, "file.txt")) ++listed_inside;
  }
  EXPECT_GT(listed_inside, 0);
  ExpectOrdinaryCallWorks(list_files, "{}", R"("files":["sub/file.txt"])");
}

std::string ResolverName(const ::testing::TestParamInfo<BeneathResolver>& info) {
  return info.param == BeneathResolver::kOpenat2 ? "Openat2" : "Walk";
}

INSTANTIATE_TEST_SUITE_P(Resolvers, BuiltinToolsRaceTest,
                         ::testing::Values(BeneathResolver::kOpenat2, BeneathResolver::kWalk),
                         ResolverName);

}  // namespace
}  // namespace taskboard::worker
