#include "scheduler/engine/workers/worker_manager.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::RunsFixture;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "A"}]})";

class FixedClock final : public Clock {
 public:
  int64_t NowMs() const override { return RunsFixture::kStartMs; }
};

// Records every call, in order, as "event:argument".
class RecordingWorkerListener final : public WorkerListener {
 public:
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease*) override {
    heard.push_back(absl::StrCat("lease_ended:", lease_id));
  }
  void OnStreamClosed(uint64_t stream_id) override {
    heard.push_back(absl::StrCat("stream_closed:", stream_id));
  }
  void OnWorkerGone(const std::string& worker_id) override {
    heard.push_back(absl::StrCat("worker_gone:", worker_id));
  }
  std::vector<std::string> heard;
};

class WorkerManagerTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;

  WorkerManagerTest() {
    workers_.AddListener(&listener_);
    workers_.Start(&clock_, 60'000);
    run_id_ = f_.Start(kOneTask);
  }

  RunState& Run() { return *f_.runs().active().Find(run_id_)->state; }
  const store::TaskRecord& TaskA() { return *Run().FindTask("a"); }
  // Task `a` dispatched under `lease_id` to w1's process p1, before a
  // restart: no stream holds the lease.
  void DispatchedBefore(const std::string& lease_id) {
    store::TaskRecord& task = Run().MutableTask("a");
    MarkDispatched(task, lease_id, "w1", kNow);
    task.set_worker_incarnation("p1");
    workers_.leases().Grant({lease_id, run_id_, "a", "w1", "tok-1", 0, kNow + 30'000});
  }
  // w1 connects on `stream_id` as process `incarnation`, holding `held`
  // (lease ids of task `a`); returns what it was sent.
  std::vector<v1::ConnectResponse> Hello(uint64_t stream_id, const std::string& incarnation,
                                         const std::vector<std::string>& held = {}) {
    v1::Hello hello;
    hello.set_worker_id("w1");
    hello.set_incarnation(incarnation);
    hello.set_slots(1);
    hello.add_agents()->set_name("coder");
    for (const std::string& lease_id : held) {
      v1::HeldTask& task = *hello.add_held_tasks();
      task.set_lease_id(lease_id);
      task.set_task_id("a");
    }
    auto channel = std::make_shared<RecordingChannel>();
    channels_[stream_id] = channel;
    workers_.Hello(stream_id, hello, channel, "tok-1");
    return Sent(stream_id);
  }
  // What `stream_id` was sent, as if the batch was written.
  std::vector<v1::ConnectResponse> Sent(uint64_t stream_id) {
    for (auto& effect : f_.batch().TakeEffects()) effect();
    return channels_[stream_id]->Take();
  }

  RunsFixture f_;
  FixedClock clock_;
  std::string run_id_;
  TimerQueue timers_;
  WorkerManager workers_{
      {&f_.store(), "sched-1", 30'000, 5'000, 3, RetryBackoff(), 1 << 20, nullptr},
      &f_.batch(),
      &timers_,
      &f_.runs().active()};
  RecordingWorkerListener listener_;
  std::map<uint64_t, std::shared_ptr<RecordingChannel>> channels_;
};

TEST_F(WorkerManagerTest, Hello_HeldLease_ReattachedAndWelcomed) {
  DispatchedBefore("lease-1");
  std::vector<v1::ConnectResponse> sent = Hello(7, "p1", {"lease-1"});
  ASSERT_THAT(sent, SizeIs(1));
  const v1::Welcome& welcome = sent[0].welcome();
  EXPECT_EQ(welcome.scheduler_id(), "sched-1");
  EXPECT_EQ(welcome.lease_timeout_ms(), 30'000);
  EXPECT_EQ(welcome.heartbeat_interval_ms(), 5'000);
  EXPECT_TRUE(welcome.accepts_batches());
  EXPECT_TRUE(welcome.governs_llm_calls());
  EXPECT_THAT(welcome.revoked_lease_ids(), IsEmpty());
  ASSERT_NE(workers_.leases().Find("lease-1"), nullptr);
  EXPECT_EQ(workers_.leases().Find("lease-1")->stream_id, 7u);
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_THAT(listener_.heard, IsEmpty());
}

TEST_F(WorkerManagerTest, Hello_OrphanLease_LosesTheTask) {
  DispatchedBefore("lease-1");
  MarkRunning(Run().MutableTask("a"), kNow);  // it ran: the restart cost the attempt
  Hello(7, "p1");
  EXPECT_THAT(listener_.heard, ElementsAre("lease_ended:lease-1"));
  EXPECT_EQ(workers_.leases().Find("lease-1"), nullptr);
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_READY);
  EXPECT_EQ(TaskA().infra_failures(), 1);
  ASSERT_THAT(TaskA().task().earlier_attempts(), SizeIs(1));
  EXPECT_EQ(TaskA().task().earlier_attempts(0).ended(), attempt_end::kWorkerLost);
  EXPECT_THAT(f_.batch().touched(), ElementsAre(run_id_));
}

TEST_F(WorkerManagerTest, Hello_NeverDelivered_QueuedAgainWithoutAnAttempt) {
  DispatchedBefore("lease-1");
  // The same process, never told it started the task: the assignment was lost.
  Hello(7, "p1");
  EXPECT_THAT(listener_.heard, ElementsAre("lease_ended:lease-1"));
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_READY);
  EXPECT_EQ(TaskA().infra_failures(), 0);
  ASSERT_THAT(TaskA().task().earlier_attempts(), SizeIs(1));
  EXPECT_EQ(TaskA().task().earlier_attempts(0).ended(), attempt_end::kWorkerLost);

  // Another process of w1 (a restart) that never ran it loses it instead.
  DispatchedBefore("lease-2");
  Hello(8, "p2");
  EXPECT_EQ(TaskA().infra_failures(), 1);
}

TEST_F(WorkerManagerTest, Disconnected_LastStream_ListenersHearClosedThenGone) {
  Hello(7, "p1");
  Hello(8, "p1");
  workers_.Disconnected(7);
  EXPECT_THAT(listener_.heard, ElementsAre("stream_closed:7"));
  EXPECT_EQ(workers_.streams().Find(7), nullptr);
  workers_.Disconnected(8);
  EXPECT_THAT(listener_.heard, ElementsAre("stream_closed:7", "stream_closed:8", "worker_gone:w1"));
  // A stream closed before its Hello: closed, but no worker was there to go.
  workers_.Disconnected(9);
  EXPECT_THAT(listener_.heard, SizeIs(4));
  EXPECT_EQ(listener_.heard.back(), "stream_closed:9");
}

TEST_F(WorkerManagerTest, Disconnected_HeldLease_StaysUntilTheWorkerIsBack) {
  DispatchedBefore("lease-1");
  Hello(7, "p1", {"lease-1"});
  workers_.Disconnected(7);
  ASSERT_NE(workers_.leases().Find("lease-1"), nullptr);
  EXPECT_EQ(workers_.leases().Find("lease-1")->stream_id, 0u);
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
}

TEST_F(WorkerManagerTest, Revoke_AsTheRunsRevoker_CancelsAndEndsTheLease) {
  DispatchedBefore("lease-1");
  Hello(7, "p1", {"lease-1"});
  LeaseRevoker& revoker = workers_;
  revoker.Revoke({"lease-1"}, "paused: budget");
  EXPECT_THAT(listener_.heard, ElementsAre("lease_ended:lease-1"));
  std::vector<v1::ConnectResponse> sent = Sent(7);
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].cancel().lease_id(), "lease-1");
  EXPECT_EQ(sent[0].cancel().reason(), "paused: budget");
}

TEST_F(WorkerManagerTest, Rearm_RecoveredTasks_LeaseAndTimersAsBefore) {
  store::TaskRecord& task = Run().MutableTask("a");
  MarkDispatched(task, "lease-1", "w1", kNow);
  task.mutable_assignment()->set_timeout_seconds(5);
  workers_.Rearm(*f_.runs().active().Find(run_id_));
  const dispatch::Lease* lease = workers_.leases().Find("lease-1");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->worker_id, "w1");
  EXPECT_EQ(lease->stream_id, 0u);
  EXPECT_EQ(lease->expires_ms, kNow + 30'000);
  std::optional<Timer> timeout = timers_.PopDue(kNow + 5'000);
  ASSERT_TRUE(timeout.has_value());
  EXPECT_EQ(timeout->kind, TimerKind::kTaskTimeout);
  EXPECT_EQ(timeout->token, "lease-1");
  EXPECT_EQ(timers_.size(), 0u);
}

}  // namespace
}  // namespace taskboard::engine
