// The shared tool cache across real processes (docs/semantics.md#tool-cache): command
// agents call worker command tools through `taskboard tool`; the tools log
// every real execution to a file next to them, so "how many times did this
// run" is counted outside Taskboard, and the ledger (GetTask tool_calls)
// says which calls were served from the cache and by whom.

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using testing::IsOk;

// One directory of command tools for the whole test binary:
//   slow_read  cacheable, key `path`; sleeps 1 s so identical calls overlap
//   flaky      cacheable; fails the first time it ever runs, then succeeds
//   stall      cacheable; logs the worker that runs it (the parent of its
//              taskboard-reaper, its own parent), sleeps 4 s
void WriteTools(const std::filesystem::path& path) {
  std::ofstream(path / "stall.sh") << R"(#!/bin/sh
here=$(dirname "$0")
cat > /dev/null
sed -n 's/^PPid:[[:space:]]*//p' "/proc/$PPID/status" >> "$here/stall.log"
sleep 4
printf '{"content":"slow answer"}\n'
)";
  std::ofstream(path / "stall.yaml") << R"(name: stall
command: ["./stall.sh"]
cacheable: true
ttl_ms: 600000
)";
  std::filesystem::permissions(path / "stall.sh", std::filesystem::perms::owner_all);
  std::ofstream(path / "slow_read.sh") << R"(#!/bin/sh
here=$(dirname "$0")
args=$(cat)
echo "$args" >> "$here/slow_read.log"
sleep 1
printf '{"content":"shared notes","args":%s}\n' "$args"
)";
  std::ofstream(path / "slow_read.yaml") << R"(name: slow_read
description: Reads a shared file slowly
command: ["./slow_read.sh"]
cacheable: true
ttl_ms: 600000
key_fields: [path]
)";
  std::ofstream(path / "flaky.sh") << R"(#!/bin/sh
here=$(dirname "$0")
echo run >> "$here/flaky.log"
if [ ! -e "$here/flaky.marker" ]; then touch "$here/flaky.marker"; echo "upstream is down" >&2; exit 1; fi
printf '{"ok":true}\n'
)";
  std::ofstream(path / "flaky.yaml") << R"(name: flaky
command: ["./flaky.sh"]
cacheable: true
ttl_ms: 600000
)";
  std::filesystem::permissions(path / "slow_read.sh", std::filesystem::perms::owner_all);
  std::filesystem::permissions(path / "flaky.sh", std::filesystem::perms::owner_all);
}

// Removed when the test binary exits.
const std::filesystem::path& ToolsDir() {
  static testing::TempDir dir;
  static const bool written = (WriteTools(dir.path()), true);
  (void)written;
  return dir.path();
}

// The lines of a tool's execution log, one per real run (stall logs the
// worker that ran it). Each test reads it relative to the count when the
// test began.
std::vector<std::string> ExecutionLines(const std::string& tool) {
  std::ifstream in(ToolsDir() / (tool + ".log"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
int Executions(const std::string& tool) { return static_cast<int>(ExecutionLines(tool).size()); }

ClusterOptions ThreeWorkersWithTools() {
  ClusterOptions options;
  options.workers = 3;
  options.slots = 4;
  options.worker_flags = {"--tools", ToolsDir().string()};
  return options;
}

class ToolCacheTest : public testing::ClusterTest {
 protected:
  ToolCacheTest() : ClusterTest(ThreeWorkersWithTools()) {}

  v1::Run RunToEnd(const std::string& flow, const std::string& session_id = "") {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow, Json::object(), session_id);
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk()) << cluster_.Logs();
    return run.ok() ? *run : v1::Run();
  }

  // The single tool call of a task (a test failure otherwise).
  v1::Observation OnlyCall(const std::string& run_id, const std::string& task_id) {
    absl::StatusOr<std::vector<v1::Observation>> calls = cluster_.ToolCalls(run_id, task_id);
    EXPECT_THAT(calls.status(), IsOk());
    EXPECT_TRUE(calls.ok() && calls->size() == 1)
        << task_id << " made " << (calls.ok() ? calls->size() : 0) << " calls";
    return calls.ok() && calls->size() == 1 ? calls->front() : v1::Observation();
  }
};

// One slot per worker: two tasks of a board run on two workers.
ClusterOptions OneSlotWorkersWithTools() {
  ClusterOptions options = ThreeWorkersWithTools();
  options.slots = 1;
  return options;
}

class CoalescedOwnerLostTest : public testing::ClusterTest {
 protected:
  CoalescedOwnerLostTest() : ClusterTest(OneSlotWorkersWithTools()) {}
};

// Two tasks on two workers make the same cacheable call; the worker running
// it (the owner) is killed mid-call. The task waiting on that call is not
// left hanging: it runs the tool itself, and the killed worker's task, run
// again elsewhere, is served that result. Two real executions, both tasks
// complete with the answer.
TEST_F(CoalescedOwnerLostTest, OwnerWorkerKilledMidCall_WaiterRunsTheToolItself) {
  const size_t before = ExecutionLines("stall").size();
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(name: owner-lost
kind: board
board:
  tasks:
    - {id: a, agent: echo, task: 'tool stall {"q": 1}'}
    - {id: b, agent: echo, task: 'tool stall {"q": 1}'}
)");
  ASSERT_THAT(run_id.status(), IsOk());
  // The owner has started the tool: find its worker by the tool's grandparent.
  std::vector<std::string> lines;
  for (auto deadline = absl::Now() + absl::Seconds(20);
       (lines = ExecutionLines("stall")).size() <= before && absl::Now() < deadline;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_GT(lines.size(), before) << cluster_.Logs();
  int owner = -1;
  for (int i = 0; i < 3; ++i) {
    if (absl::StrCat(cluster_.worker(i)->pid()) == lines[before]) owner = i;
  }
  ASSERT_NE(owner, -1) << "no worker has pid " << lines[before];
  cluster_.KillWorker(owner, SIGKILL);

  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
  for (const v1::Task& task : run->tasks()) {
    EXPECT_THAT(task.output(), ::testing::HasSubstr("slow answer")) << task.task_id();
  }
  EXPECT_EQ(ExecutionLines("stall").size() - before, 2u)
      << "the killed owner's call and the promoted waiter's, nothing more";
}

constexpr char kOneRead[] = R"(
name: one-read
toolCache:
  tools:
    slow_read: {scope: session}
phases:
  - id: read
    agent: echo
    task: 'tool slow_read {"path": "notes.md"}'
)";

TEST_F(ToolCacheTest, Board_SixConcurrentIdenticalCalls_OneExecutionFiveServedFromIt) {
  const int before = Executions("slow_read");
  std::string tasks;
  for (int i = 0; i < 10; ++i) {
    tasks += absl::StrCat("    - id: t", i, "\n      agent: echo\n      task: '",
                          i < 6 ? R"(tool slow_read {"path": "notes.md"})" : "sleep 1 done", "'\n");
  }
  const v1::Run run = RunToEnd("name: shared-reads\nkind: board\nboard:\n  tasks:\n" + tasks);
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();

  EXPECT_EQ(Executions("slow_read") - before, 1);
  std::vector<v1::Observation> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(OnlyCall(run.run_id(), absl::StrCat("t", i)));
  std::vector<v1::Observation> executed, served;
  for (const v1::Observation& call : calls) (call.cached() ? served : executed).push_back(call);
  ASSERT_EQ(executed.size(), 1u);
  ASSERT_EQ(served.size(), 5u);
  for (const v1::Observation& call : served) {
    EXPECT_EQ(call.source_task().run_id(), run.run_id());
    EXPECT_EQ(call.source_task().task_id(), executed[0].task_id());
    EXPECT_EQ(call.result_json(), executed[0].result_json());
  }
  // Tasks spread over the three workers, so the sharing crossed processes.
  std::map<std::string, int> per_worker;
  for (const v1::Task& task : run.tasks()) per_worker[task.worker_id()]++;
  EXPECT_GE(per_worker.size(), 2u);
}

TEST_F(ToolCacheTest, Board_SixReadFileCallsOfOnePath_OneExecutesFiveAreServedFromIt) {
  // The built-in read_file: its executions are the observations not served
  // from the cache (the tool reports nothing else).
  std::ofstream(cluster_.dir() / "shared.md") << "# conventions\n";
  std::string tasks;
  for (int i = 0; i < 10; ++i) {
    tasks +=
        absl::StrCat("    - id: t", i, "\n      agent: echo\n      task: '",
                     i < 6 ? R"(tool read_file {"path": "shared.md"})" : "echo no tools", "'\n");
  }
  const v1::Run run = RunToEnd("name: shared-read-file\nkind: board\nboard:\n  tasks:\n" + tasks);
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  std::vector<v1::Observation> executed, served;
  for (int i = 0; i < 6; ++i) {
    v1::Observation call = OnlyCall(run.run_id(), absl::StrCat("t", i));
    EXPECT_EQ(call.tool_name(), "read_file");
    (call.cached() ? served : executed).push_back(call);
  }
  ASSERT_EQ(executed.size(), 1u);
  ASSERT_EQ(served.size(), 5u);
  for (const v1::Observation& call : served) {
    EXPECT_EQ(call.source_task().task_id(), executed[0].task_id());
    EXPECT_EQ(call.result_json(), executed[0].result_json());
  }
  for (int i = 6; i < 10; ++i) {
    absl::StatusOr<std::vector<v1::Observation>> none =
        cluster_.ToolCalls(run.run_id(), absl::StrCat("t", i));
    ASSERT_THAT(none.status(), IsOk());
    EXPECT_TRUE(none->empty());
  }
}

TEST_F(ToolCacheTest, SessionScope_ServedToTheSameSessionNotToAnother) {
  const int before = Executions("slow_read");
  const v1::Run first = RunToEnd(kOneRead, "session-a");
  ASSERT_EQ(first.status(), v1::RUN_STATUS_COMPLETED) << first.error() << cluster_.Logs();
  const v1::Run second = RunToEnd(kOneRead, "session-a");
  ASSERT_EQ(second.status(), v1::RUN_STATUS_COMPLETED) << second.error();
  EXPECT_EQ(Executions("slow_read") - before, 1);
  const v1::Observation served = OnlyCall(second.run_id(), "read");
  EXPECT_TRUE(served.cached());
  EXPECT_EQ(served.source_task().run_id(), first.run_id());
  EXPECT_EQ(served.source_task().task_id(), "read");

  const v1::Run other = RunToEnd(kOneRead, "session-b");
  ASSERT_EQ(other.status(), v1::RUN_STATUS_COMPLETED) << other.error();
  EXPECT_EQ(Executions("slow_read") - before, 2);
  EXPECT_FALSE(OnlyCall(other.run_id(), "read").cached());
}

TEST_F(ToolCacheTest, SchedulerKilled_UnexpiredEntryIsStillServedAfterRestart) {
  const int before = Executions("slow_read");
  const v1::Run first = RunToEnd(kOneRead, "session-restart");
  ASSERT_EQ(first.status(), v1::RUN_STATUS_COMPLETED) << first.error() << cluster_.Logs();

  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  const v1::Run second = RunToEnd(kOneRead, "session-restart");
  ASSERT_EQ(second.status(), v1::RUN_STATUS_COMPLETED) << second.error() << cluster_.Logs();
  EXPECT_EQ(Executions("slow_read") - before, 1);
  const v1::Observation served = OnlyCall(second.run_id(), "read");
  EXPECT_TRUE(served.cached());
  EXPECT_EQ(served.source_task().run_id(), first.run_id());
}

TEST_F(ToolCacheTest, FailingCall_IsNotCached_TheNextCallerExecutes) {
  std::filesystem::remove(ToolsDir() / "flaky.marker");
  const int before = Executions("flaky");
  const v1::Run run = RunToEnd(R"(
name: flaky-twice
phases:
  - id: first
    agent: echo
    task: 'tool flaky {"q": 1}'
    optional: true
  - id: second
    agent: echo
    task: 'tool flaky {"q": 1}'
    dependsOn: [first]
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(Executions("flaky") - before, 2);
  const v1::Observation failed = OnlyCall(run.run_id(), "first");
  EXPECT_THAT(failed.error(), ::testing::HasSubstr("upstream is down"));
  const v1::Observation retried = OnlyCall(run.run_id(), "second");
  EXPECT_FALSE(retried.cached());
  EXPECT_TRUE(retried.error().empty());
  EXPECT_EQ(retried.result_json(), R"({"ok":true})");
}

TEST_F(ToolCacheTest, ExpiredEntry_IsExecutedAgain) {
  const int before = Executions("slow_read");
  const v1::Run run = RunToEnd(R"(
name: expiring
toolCache:
  tools:
    slow_read: {ttlMs: 300}
phases:
  - id: early
    agent: echo
    task: 'tool slow_read {"path": "expiring.md"}'
  - id: wait
    agent: echo
    task: 'sleep 1 waited'
    dependsOn: [early]
  - id: late
    agent: echo
    task: 'tool slow_read {"path": "expiring.md"}'
    dependsOn: [wait]
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(Executions("slow_read") - before, 2);
  EXPECT_FALSE(OnlyCall(run.run_id(), "late").cached());
}

}  // namespace
}  // namespace taskboard
