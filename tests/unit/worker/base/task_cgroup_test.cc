// Task cgroups, where this machine has a cgroup v2 hierarchy the test may
// write to (as root, or delegated): a parent is made for the test and removed
// after it. Elsewhere (most containers, CI) the tests skip and say why; the
// reapers keep tasks apart there (subprocess_escape_test.cc).

#include "worker/base/task_cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/marked_processes.h"
#include "tests/testing/status_matchers.h"
#include "worker/base/inherited_children.h"
#include "worker/base/subprocess.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::ReadProcFile;

// A cgroup2 mount point from /proc/self/mountinfo, or "".
std::filesystem::path Cgroup2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> halves = absl::StrSplit(line, absl::MaxSplits(" - ", 1));
    if (halves.size() != 2 || !absl::StartsWith(halves[1], "cgroup2 ")) continue;
    std::vector<std::string> fields = absl::StrSplit(halves[0], ' ');
    if (fields.size() >= 5) return fields[4];
  }
  return {};
}

// The cgroups under `parent` (its directories; its files are its controls).
std::vector<std::string> SubCgroups(const std::filesystem::path& parent) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(parent)) {
    if (entry.is_directory()) names.push_back(entry.path().filename());
  }
  return names;
}

class TaskCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path mount = Cgroup2Mount();
    if (mount.empty()) GTEST_SKIP() << "no cgroup v2 hierarchy is mounted";
    parent_ = mount / absl::StrCat("taskboard-test-", getpid());
    if (mkdir(parent_.c_str(), 0755) != 0) {
      const std::string why = strerror(errno);
      parent_.clear();
      GTEST_SKIP() << "cannot make a cgroup under " << mount << " (" << why << ")";
    }
  }
  void TearDown() override {
    if (!parent_.empty()) rmdir(parent_.c_str());
  }

  // A `sleep 1000` child of the test process, moved into `cgroup`.
  pid_t SleeperIn(const std::filesystem::path& cgroup) {
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sleep", "sleep", "1000", nullptr);
      _exit(127);
    }
    std::ofstream(cgroup / "cgroup.procs") << pid;
    return pid;
  }

  std::filesystem::path parent_;
};

TEST_F(TaskCgroupTest, KillAll_EndsEveryMemberAndRemoveDeletesIt) {
  absl::StatusOr<std::unique_ptr<TaskCgroup>> cgroup = TaskCgroup::Create(parent_);
  ASSERT_THAT(cgroup.status(), IsOk());
  const pid_t first = SleeperIn((*cgroup)->path());
  const pid_t second = SleeperIn((*cgroup)->path());
  ASSERT_THAT(ReadProcFile(first, "cgroup"), ::testing::HasSubstr((*cgroup)->path().filename()));

  EXPECT_TRUE((*cgroup)->KillAll());
  for (pid_t pid : {first, second}) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  }
  EXPECT_THAT((*cgroup)->Remove(), IsOk());
  EXPECT_FALSE(std::filesystem::exists((*cgroup)->path()));
  EXPECT_FALSE((*cgroup)->KillAll());  // nothing left, and no directory
}

TEST_F(TaskCgroupTest, RunSubprocess_AgentRunsInItsOwnCgroup_RemovedWhenItEnds) {
  ASSERT_THAT(BecomeChildSubreaper(), IsOk());
  const std::string marker = absl::StrCat("TASKBOARD_CGROUP_TEST=", getpid());
  SubprocessOptions options;
  options.argv = {"/bin/sh", "-c",
                  "cat /proc/self/cgroup; setsid sh -c 'exec sleep 1000' </dev/null >/dev/null "
                  "2>&1 & kill -9 $PPID; sleep 1000"};
  options.env = {"PATH=/usr/bin:/bin", marker};
  options.cgroup_parent = parent_;
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(options);
  ASSERT_THAT(ran.status(), IsOk());
  // Its cgroup was a new one under the parent...
  EXPECT_THAT(ran->stdout_data, ::testing::HasSubstr(absl::StrCat("/", parent_.filename().string(),
                                                                  "/taskboard-", getpid())));
  // ...which ended the agent and the process that left its session when the
  // agent killed its reaper, and is gone.
  const std::vector<pid_t> left =
      testing::WaitUntilNoProcessWithEnvironment(marker, absl::Seconds(10));
  EXPECT_TRUE(left.empty()) << testing::DescribeProcesses(left);
  EXPECT_THAT(SubCgroups(parent_), ::testing::IsEmpty());
}

}  // namespace
}  // namespace taskboard::worker
