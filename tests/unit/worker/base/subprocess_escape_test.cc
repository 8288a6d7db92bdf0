// Processes that try to outlive their task: a child of RunSubprocess that
// starts `setsid` sessions and double-forked daemons, in a loop, then exits,
// times out, is cancelled, ignores SIGTERM, or kills or stops its own
// taskboard-reaper. Nothing it started may survive, and the same process
// then runs a normal command. Survivors are found by a marker in their
// environment (tests/testing/marked_processes.h), polled with a deadline.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/marked_processes.h"
#include "tests/testing/status_matchers.h"
#include "worker/base/inherited_children.h"
#include "worker/base/subprocess.h"
#include "worker/reaper/process_tree.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::ProcessesWithEnvironment;
using ::taskboard::testing::WaitForProcessesWithEnvironment;
using ::taskboard::testing::WaitUntilNoProcessWithEnvironment;
using Ending = SubprocessResult::Ending;

// Two escapes: a new session (out of the process group), and a double fork
// whose middle process exits at once (the sleep is orphaned; it keeps stdout
// open, as a forgotten daemon would).
constexpr char kEscape[] =
    "setsid sh -c 'exec sleep 1000' </dev/null >/dev/null 2>&1 & "
    "sh -c 'sleep 1000 &'; ";

class SubprocessEscapeTest : public ::testing::Test {
 protected:
  // The test process stands in for the worker, the subreaper of last
  // resort: what a killed reaper leaves comes here, not to init.
  static void SetUpTestSuite() { ASSERT_THAT(BecomeChildSubreaper(), IsOk()); }

  SubprocessOptions Shell(const std::string& script) {
    SubprocessOptions options;
    options.argv = {"/bin/sh", "-c", script};
    options.env = {"PATH=/usr/bin:/bin", marker_};
    options.timeout = absl::Seconds(30);
    options.kill_grace = absl::Milliseconds(300);
    return options;
  }

  // No process of the test's marker is alive within `timeout`.
  void ExpectNoSurvivors(absl::Duration timeout = absl::Seconds(10)) {
    const std::vector<pid_t> left = WaitUntilNoProcessWithEnvironment(marker_, timeout);
    EXPECT_TRUE(left.empty()) << "still running:" << testing::DescribeProcesses(left);
  }

  // The same process still runs an ordinary command, and has no child left
  // (a zombie it inherited and did not reap would be one).
  void ExpectStillRunsANormalCommand() {
    absl::StatusOr<SubprocessResult> normal = RunSubprocess(Shell("echo still here"));
    ASSERT_THAT(normal.status(), IsOk());
    EXPECT_EQ(normal->ending, Ending::kExited);
    EXPECT_EQ(normal->stdout_data, "still here\n");
    EXPECT_THAT(ChildrenOf(getpid()), ::testing::IsEmpty());
  }

  const std::string marker_ =
      absl::StrCat("TASKBOARD_ESCAPE_TEST=", getpid(), "-",
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

TEST_F(SubprocessEscapeTest, ChildExits_SetsidAndDoubleForkedProcessesEndWithIt) {
  absl::StatusOr<SubprocessResult> ran =
      RunSubprocess(Shell(absl::StrCat(kEscape, kEscape, "echo done")));
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kExited);
  EXPECT_EQ(ran->exit_code, 0);
  EXPECT_EQ(ran->stdout_data, "done\n");
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, TimesOutWhileEscapingInALoop_NothingSurvives) {
  SubprocessOptions options = Shell(absl::StrCat("while :; do ", kEscape, "sleep 0.02; done"));
  options.timeout = absl::Seconds(1);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(options);
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kTimedOut);
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, CancelledWhileEscapingInALoop_NothingSurvives) {
  CancelToken cancel;
  SubprocessOptions options = Shell(absl::StrCat("while :; do ", kEscape, "sleep 0.02; done"));
  options.cancel = &cancel;
  absl::StatusOr<SubprocessResult> ran;
  std::thread run([&] { ran = RunSubprocess(options); });
  // Cancel once escapes exist, not after a guessed sleep.
  const bool escaped = WaitForProcessesWithEnvironment(marker_, 6, absl::Seconds(10));
  cancel.Cancel("run cancelled by user");
  run.join();
  ASSERT_TRUE(escaped) << "the loop never got going";
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kCancelled);
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, IgnoresSigtermWhileEscaping_KilledAfterTheGrace) {
  // Ignored signals stay ignored across exec: every escapee ignores SIGTERM.
  SubprocessOptions options =
      Shell(absl::StrCat("trap '' TERM; while :; do ", kEscape, "sleep 0.02; done"));
  options.timeout = absl::Seconds(1);
  const absl::Time start = absl::Now();
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(options);
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kTimedOut);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, KillsItsReaper_WhatItLeftIsKilledAndReaped) {
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(
      Shell(absl::StrCat(kEscape, kEscape, "kill -9 $PPID; echo reaper killed; sleep 1000")));
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kSignaled);
  EXPECT_EQ(ran->term_signal, SIGKILL);
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, StopsItsReaper_StillEndsAfterTheTimeout) {
  // A stopped reaper cannot act on the timeout; the worker kills it and ends
  // what it leaves.
  SubprocessOptions options =
      Shell(absl::StrCat(kEscape, "kill -STOP $PPID; ", kEscape, "sleep 1000"));
  options.timeout = absl::Seconds(1);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(options);
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kTimedOut);
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, KillsItsOwnProcessGroup_TheReaperStillReports) {
  // `kill -9 0` is what scripts do to end their jobs; it must not take the
  // reaper (and with it the report) along.
  absl::StatusOr<SubprocessResult> ran =
      RunSubprocess(Shell(absl::StrCat(kEscape, "sleep 1000 & kill -9 0")));
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->ending, Ending::kSignaled);
  EXPECT_EQ(ran->term_signal, SIGKILL);
  ExpectNoSurvivors();
  ExpectStillRunsANormalCommand();
}

TEST_F(SubprocessEscapeTest, MissingProgram_NotFoundAndNothingStarted) {
  SubprocessOptions options = Shell("");
  options.argv = {"/nonexistent/program"};
  EXPECT_THAT(RunSubprocess(options).status(),
              testing::StatusIs(absl::StatusCode::kNotFound,
                                ::testing::HasSubstr("cannot run '/nonexistent/program'")));
  options.argv = {"taskboard-no-such-program-anywhere"};
  EXPECT_THAT(RunSubprocess(options).status(),
              testing::StatusIs(absl::StatusCode::kNotFound,
                                ::testing::HasSubstr("No such file or directory")));
  EXPECT_THAT(ChildrenOf(getpid()), ::testing::IsEmpty());
}

TEST_F(SubprocessEscapeTest, ProgramFromPath_KeepsItsArgvZero) {
  SubprocessOptions options = Shell("");
  options.argv = {"sh", "-c", "echo \"$0\""};
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(options);
  ASSERT_THAT(ran.status(), IsOk());
  EXPECT_EQ(ran->stdout_data, "sh\n");
}

}  // namespace
}  // namespace taskboard::worker
