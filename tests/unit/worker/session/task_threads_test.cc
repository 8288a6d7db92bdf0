// TaskThreads (worker/session/task_threads.h): every task runs at once on a
// thread of its own, a thread whose task ended runs the next one, handing a
// task over wakes the thread that takes it and no other, idle threads beyond
// `keep_idle` exit after the idle timeout (a hand-over racing that exit
// still runs), and destruction waits for running tasks. Threads are told
// apart by a thread_local that counts the threads which ran a task and the
// ones that exited, and by their kernel thread ids.

#include "worker/session/task_threads.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

// Counts the threads that ran a task (Mark) and, when they end, that exited.
class ThreadCensus {
 public:
  ThreadCensus() { current_ = this; }
  ~ThreadCensus() { current_ = nullptr; }

  // Called from a task: notes the thread it runs on.
  static void Mark() {
    thread_local Tracker tracker;
    tracker.Mark();
  }

  int started() const {
    absl::MutexLock lock(&mu_);
    return started_;
  }
  // Waits until `count` threads have exited; false on timeout.
  bool AwaitExited(int count, absl::Duration timeout = absl::Seconds(10)) const {
    struct Wait {
      const ThreadCensus* census;
      int count;
    } wait{this, count};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(
        absl::Condition(
            +[](Wait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS { return w->census->exited_ >= w->count; },
            &wait),
        timeout);
  }
  int exited() const {
    absl::MutexLock lock(&mu_);
    return exited_;
  }

 private:
  // One per thread: constructed by its first Mark, destroyed when it exits.
  struct Tracker {
    ThreadCensus* census = nullptr;
    void Mark() {
      if (census != nullptr) return;
      census = current_;
      absl::MutexLock lock(&census->mu_);
      census->started_++;
    }
    ~Tracker() {
      if (census == nullptr) return;
      absl::MutexLock lock(&census->mu_);
      census->exited_++;
    }
  };

  static inline ThreadCensus* current_ = nullptr;
  mutable absl::Mutex mu_;
  int started_ ABSL_GUARDED_BY(mu_) = 0;
  int exited_ ABSL_GUARDED_BY(mu_) = 0;
};

// Tasks that block until released; counts how many are inside at once.
class Gate {
 public:
  void Enter() {
    absl::MutexLock lock(&mu_);
    inside_++;
    mu_.Await(absl::Condition(&open_));
    inside_--;
  }
  bool AwaitInside(int count, absl::Duration timeout = absl::Seconds(10)) {
    struct Wait {
      Gate* gate;
      int count;
    } wait{this, count};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(
        absl::Condition(
            +[](Wait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS { return w->gate->inside_ >= w->count; },
            &wait),
        timeout);
  }
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }

 private:
  absl::Mutex mu_;
  int inside_ ABSL_GUARDED_BY(mu_) = 0;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
};

TEST(TaskThreads, BlockingTasks_AllRunAtOnce) {
  constexpr int kTasks = 8;
  Gate gate;
  absl::BlockingCounter done(kTasks);
  TaskThreads threads(/*keep_idle=*/1);
  for (int i = 0; i < kTasks; ++i) {
    threads.Run([&] {
      gate.Enter();
      done.DecrementCount();
    });
  }
  // More than keep_idle, all inside together: none waits for another.
  EXPECT_TRUE(gate.AwaitInside(kTasks)) << "tasks waited for each other";
  gate.Open();
  done.Wait();
}

TEST(TaskThreads, SequentialTasks_NextOneRunsOnAThreadThatRanAnEarlierOne) {
  // A thread is idle again a moment after its task returns (until then the
  // next task gets a new thread), so tasks run one after the other until
  // one starts without a thread being made.
  constexpr int kMaxTasks = 1000;
  ThreadCensus census;
  int tasks = 0;
  bool reused = false;
  {
    TaskThreads threads(/*keep_idle=*/1, /*idle_timeout=*/absl::Hours(1));
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!reused && tasks < kMaxTasks && absl::Now() < deadline) {
      const int threads_before = census.started();
      absl::Notification ran;
      threads.Run([&] {
        ThreadCensus::Mark();
        ran.Notify();
      });
      ran.WaitForNotification();
      ++tasks;
      reused = tasks > 1 && census.started() == threads_before;
    }
    EXPECT_TRUE(reused) << tasks << " tasks ran on " << census.started() << " threads";
    EXPECT_EQ(census.exited(), 0) << "a thread exited before its idle timeout";
  }
  EXPECT_EQ(census.exited(), census.started()) << "the destructor joined every thread";
}

TEST(TaskThreads, IdleBeyondKeepIdle_ExitsAfterTheTimeoutAndTheKeptOneRunsTheNextTask) {
  ThreadCensus census;
  Gate gate;
  absl::BlockingCounter done(3);
  TaskThreads threads(/*keep_idle=*/1, /*idle_timeout=*/absl::Milliseconds(20));
  for (int i = 0; i < 3; ++i) {
    threads.Run([&] {
      ThreadCensus::Mark();
      gate.Enter();
      done.DecrementCount();
    });
  }
  EXPECT_TRUE(gate.AwaitInside(3));
  gate.Open();
  done.Wait();
  ASSERT_EQ(census.started(), 3);

  // Three idle threads, one kept: two exit.
  ASSERT_TRUE(census.AwaitExited(2)) << "idle threads did not exit; exited " << census.exited();
  // The kept one is still there: the next task runs on it, no thread is made.
  absl::Notification ran;
  threads.Run([&] {
    ThreadCensus::Mark();
    ran.Notify();
  });
  ran.WaitForNotification();
  EXPECT_EQ(census.started(), 3) << "the kept idle thread had exited";
  EXPECT_EQ(census.exited(), 2);
}

// The kernel's count of the times thread `tid` of this process blocked and
// was woken again (voluntary context switches); -1 if unreadable.
int64_t VoluntarySwitches(pid_t tid) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    constexpr absl::string_view kKey = "voluntary_ctxt_switches:";
    if (absl::string_view(line).substr(0, kKey.size()) == kKey) {
      return std::stoll(line.substr(kKey.size()));
    }
  }
  return -1;
}

pid_t ThisThreadId() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// Waits until `threads` has `count` idle threads; false on timeout.
bool AwaitIdle(const TaskThreads& threads, size_t count,
               absl::Duration timeout = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (threads.idle_threads() != count) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

TEST(TaskThreads, HandOver_WakesTheThreadThatTakesTheTaskAndNoOther) {
  constexpr int kThreads = 6;
  constexpr int kTasks = 50;
  TaskThreads threads(/*keep_idle=*/kThreads, /*idle_timeout=*/absl::Hours(1));
  // kThreads threads, all idle afterwards.
  Gate gate;
  absl::Mutex mu;
  std::set<pid_t> pool;
  for (int i = 0; i < kThreads; ++i) {
    threads.Run([&] {
      {
        absl::MutexLock lock(&mu);
        pool.insert(ThisThreadId());
      }
      gate.Enter();
    });
  }
  ASSERT_TRUE(gate.AwaitInside(kThreads));
  gate.Open();
  ASSERT_TRUE(AwaitIdle(threads, kThreads));
  std::map<pid_t, int64_t> before;
  for (pid_t tid : pool) before[tid] = VoluntarySwitches(tid);

  // One task at a time: each hand-over picks one idle thread.
  std::set<pid_t> ran;
  for (int i = 0; i < kTasks; ++i) {
    absl::Notification done;
    threads.Run([&] {
      {
        absl::MutexLock lock(&mu);
        ran.insert(ThisThreadId());
      }
      done.Notify();
    });
    done.WaitForNotification();
    ASSERT_TRUE(AwaitIdle(threads, kThreads));
  }
  ASSERT_FALSE(ran.empty());
  int untouched = 0;
  for (pid_t tid : pool) {
    ASSERT_GE(before[tid], 0) << "cannot read the switches of thread " << tid;
    if (ran.contains(tid)) continue;
    EXPECT_EQ(VoluntarySwitches(tid), before[tid])
        << "idle thread " << tid << " woke for a task handed to another";
    ++untouched;
  }
  EXPECT_GT(untouched, 0) << "every thread ran a task: nothing shows who woke";
}

TEST(TaskThreads, HandOverRacingTheIdleTimeout_EveryTaskRuns) {
  // Threads time out while Run hands them tasks: a thread Run took must run
  // its task, not exit, and one that exited must not be handed one.
  TaskThreads threads(/*keep_idle=*/0, /*idle_timeout=*/absl::Microseconds(300));
  for (int i = 0; i < 300; ++i) {
    absl::Notification ran;
    threads.Run([&] { ran.Notify(); });
    ASSERT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10))) << "task " << i << " lost";
    absl::SleepFor(absl::Microseconds(i % 7 * 100));
  }
}

TEST(TaskThreads, TaskBlockedForever_AnotherRunStartsAtOnceOnAnotherThread) {
  // Run never waits for a running task, however long it blocks, and a task
  // that starts a task (as a finishing session task does) does not wait.
  TaskThreads threads(/*keep_idle=*/1, /*idle_timeout=*/absl::Hours(1));
  Gate gate;
  absl::Notification blocked_started;
  threads.Run([&] {
    blocked_started.Notify();
    gate.Enter();
  });
  blocked_started.WaitForNotification();
  absl::Notification inner_ran;
  absl::Notification outer_ran;
  threads.Run([&] {
    threads.Run([&] { inner_ran.Notify(); });
    outer_ran.Notify();
  });
  EXPECT_TRUE(outer_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(inner_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  gate.Open();
}

TEST(TaskThreads, Destructor_WaitsForTheRunningTasks) {
  Gate gate;
  std::atomic<int> finished{0};
  std::thread opener;
  {
    TaskThreads threads(/*keep_idle=*/0);
    for (int i = 0; i < 3; ++i) {
      threads.Run([&] {
        gate.Enter();
        finished++;
      });
    }
    EXPECT_TRUE(gate.AwaitInside(3));
    // Opens once the destructor is (almost surely) waiting; it must wait
    // however late that is.
    opener = std::thread([&] {
      absl::SleepFor(absl::Milliseconds(50));
      gate.Open();
    });
  }
  EXPECT_EQ(finished.load(), 3);
  opener.join();
}

}  // namespace
}  // namespace taskboard::worker
