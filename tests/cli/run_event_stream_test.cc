#include "tools/cli/run_event_stream.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {
namespace {

struct ThreadSched {
  int nice = 0;
  int policy = 0;
};

// Every thread of this process, from /proc/self/task/*/stat: fields 19
// (nice) and 41 (policy), counted from the pid, after the name in brackets.
std::vector<ThreadSched> ThreadsOfThisProcess() {
  std::vector<ThreadSched> threads;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream file(task.path() / "stat");
    std::stringstream text;
    text << file.rdbuf();
    const std::string stat = text.str();
    const size_t name_end = stat.rfind(')');
    if (name_end == std::string::npos) continue;
    // Fields from the third (state) on.
    std::vector<std::string> fields =
        absl::StrSplit(stat.substr(name_end + 2), ' ', absl::SkipEmpty());
    if (fields.size() < 39) continue;
    threads.push_back({std::stoi(fields[19 - 3]), std::stoi(fields[41 - 3])});
  }
  return threads;
}

TEST(RunEventStream, ReaderThread_YieldsTheCpuToTheRun) {
  testing::FakeScheduler scheduler;
  scheduler.SetRun(testing::MakeRun(R"pb(run_id: "r-1" status: RUN_STATUS_RUNNING)pb"));
  scheduler.AddEvent(R"pb(warning { message: "hello" })pb",
                     testing::MakeRun(R"pb(run_id: "r-1" status: RUN_STATUS_RUNNING)pb"));
  scheduler.HoldWatchOpen();
  const id_t caller = static_cast<id_t>(gettid());
  const int caller_policy = sched_getscheduler(0);
  const int caller_nice = getpriority(PRIO_PROCESS, caller);
  SchedulerClient client(scheduler.address());
  RunEventStream stream(client, "r-1", 0);
  // The event went through the reader thread, which is still reading.
  std::vector<v1::RunEvent> events = stream.Next(absl::Now() + absl::Seconds(30));
  ASSERT_EQ(events.size(), 1u);
  ASSERT_FALSE(stream.ended());
  int yielding = 0;
  for (const ThreadSched& thread : ThreadsOfThisProcess()) {
    if (thread.nice >= RunEventStream::kReaderNice && thread.policy == SCHED_BATCH) ++yielding;
  }
  // At least the reader (threads gRPC starts from it inherit its priority).
  EXPECT_GE(yielding, 1) << "the reader thread runs as a batch thread at nice "
                         << RunEventStream::kReaderNice << " or lower priority";
  // The caller's thread, which renders the run, keeps its priority.
  EXPECT_EQ(sched_getscheduler(0), caller_policy);
  EXPECT_EQ(getpriority(PRIO_PROCESS, caller), caller_nice);
}

}  // namespace
}  // namespace taskboard::cli
