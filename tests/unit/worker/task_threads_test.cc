// TaskThreads (worker/session/task_threads.h): every task runs at once on a
// thread of its own, a thread whose task ended runs the next one, idle
// threads beyond `keep_idle` exit after the idle timeout, and destruction
// waits for running tasks. Threads are told apart by a thread_local that
// counts the threads which ran a task and the ones that exited.

#include "worker/session/task_threads.h"

#include <atomic>
#include <thread>

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
