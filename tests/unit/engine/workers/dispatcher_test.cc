#include "scheduler/engine/workers/dispatcher.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::RunsFixture;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kOneTask[] = R"({"name": "one", "phases": [
    {"id": "a", "agent": "coder", "task": "A"}]})";

class FixedClock final : public Clock {
 public:
  int64_t NowMs() const override { return RunsFixture::kStartMs; }
};

// Answers every task with the choice set for it; records what it was asked.
class FakePriorWorkSource final : public PriorWorkSource {
 public:
  Choice ChooseFor(ActiveRun&, const std::string& task_id) override {
    asked.push_back(task_id);
    return next;
  }
  void SendAfterCommit(ActiveRun&, v1::ConnectResponse message) override {
    after_commit.push_back(std::move(message));
  }
  void DispatchSummaries() override { summary_rounds++; }
  void OnSummaryResult(const v1::TaskResult&) override {}
  void OnSummaryReturned(absl::string_view) override {}

  Choice next = Choice::Send({});
  std::vector<std::string> asked;
  std::vector<v1::ConnectResponse> after_commit;
  int summary_rounds = 0;
};

class DispatcherTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;
  static constexpr int64_t kSchedulingTimeoutMs = 60'000;

  DispatcherTest() {
    dispatcher_.SetPriorWork(&source_);
    dispatcher_.Start(&clock_, kSchedulingTimeoutMs);
    run_id_ = f_.Start(kOneTask);
  }

  std::shared_ptr<RecordingChannel> Connect(uint64_t stream_id) {
    v1::Hello hello;
    hello.set_worker_id("w1");
    hello.set_incarnation("p1");
    hello.set_slots(1);
    hello.add_agents()->set_name("coder");
    auto channel = std::make_shared<RecordingChannel>();
    streams_.Add(stream_id, hello, channel, "tok-1");
    dispatcher_.AgentOffered("coder");
    return channel;
  }
  RunState& Run() { return *f_.runs().active().Find(run_id_)->state; }
  void QueueA() { dispatcher_.Queue(Run(), Run().KeptTaskId("a"), *Run().FindTask("a")); }
  // What the batch promised to send, as if it was written.
  void RunEffects() {
    for (auto& effect : f_.batch().TakeEffects()) effect();
  }

  RunsFixture f_;
  FixedClock clock_;
  std::string run_id_;
  TimerQueue timers_;
  WorkerStreams streams_{&f_.batch()};
  LeaseKeeper leases_{
      {&f_.store(), 30'000, 3, nullptr}, &f_.batch(), &f_.runs().active(), &streams_};
  Dispatcher dispatcher_{{30'000, nullptr},   &f_.batch(), &timers_,
                         &f_.runs().active(), &streams_,   &leases_};
  FakePriorWorkSource source_;
};

TEST_F(DispatcherTest, Dispatch_ReadyTask_GrantsLeaseAndSendsPriorWork) {
  std::shared_ptr<RecordingChannel> channel = Connect(1);
  QueueA();
  v1::PriorWork prior_work;
  prior_work.mutable_meta()->set_policy("all");
  source_.next = PriorWorkSource::Choice::Send(prior_work);
  dispatcher_.Dispatch();
  RunEffects();
  EXPECT_EQ(Run().FindTask("a")->task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(leases_.table().size(), 1u);
  EXPECT_EQ(dispatcher_.dispatched(), 1);
  EXPECT_EQ(source_.summary_rounds, 2);  // before and after the tasks
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].assignment().task_id(), "a");
  EXPECT_EQ(sent[0].assignment().prior_work().meta().policy(), "all");
  EXPECT_EQ(sent[0].assignment().lease_id(), Run().FindTask("a")->lease_id());
}

TEST_F(DispatcherTest, Dispatch_ParkedTask_StaysOutOfTheQueue) {
  std::shared_ptr<RecordingChannel> channel = Connect(1);
  QueueA();
  source_.next = PriorWorkSource::Choice::Parked();
  dispatcher_.Dispatch();
  RunEffects();
  EXPECT_EQ(Run().FindTask("a")->task().state(), v1::TASK_STATE_READY);
  EXPECT_EQ(dispatcher_.ready().TotalDepth(), 0u);
  EXPECT_EQ(leases_.table().size(), 0u);
  EXPECT_THAT(channel->Take(), IsEmpty());
}

TEST_F(DispatcherTest, Dispatch_UnreadablePriorWork_FailsTheTaskWithTodaysText) {
  Connect(1);
  QueueA();
  source_.next = PriorWorkSource::Choice::Failed(absl::UnavailableError("disk gone"));
  dispatcher_.Dispatch();
  const store::TaskRecord& task = *Run().FindTask("a");
  EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.task().error(),
              HasSubstr("prior work of task 'a' could not be read from the ledger: disk gone; "
                        "the scheduler's store failed a read"));
  EXPECT_EQ(leases_.table().size(), 0u);
}

TEST_F(DispatcherTest, Dispatch_AfterCommit_HandsTheAssignmentToTheSource) {
  std::shared_ptr<RecordingChannel> channel = Connect(1);
  QueueA();
  source_.next = PriorWorkSource::Choice::AfterCommit();
  dispatcher_.Dispatch();
  RunEffects();
  EXPECT_EQ(Run().FindTask("a")->task().state(), v1::TASK_STATE_DISPATCHED);
  ASSERT_THAT(source_.after_commit, SizeIs(1));
  EXPECT_EQ(source_.after_commit[0].assignment().task_id(), "a");
  EXPECT_FALSE(source_.after_commit[0].assignment().has_prior_work());
  EXPECT_THAT(channel->Take(), IsEmpty());
}

TEST_F(DispatcherTest, SchedulingCheck_FailsOnlyExpiredEntries) {
  QueueA();  // nobody offers "coder": a check is armed for the deadline
  std::optional<Timer> early = timers_.PopDue(kNow + kSchedulingTimeoutMs - 1);
  EXPECT_FALSE(early.has_value());
  std::optional<Timer> due = timers_.PopDue(kNow + kSchedulingTimeoutMs);
  ASSERT_TRUE(due.has_value());
  EXPECT_EQ(due->kind, TimerKind::kScheduling);
  EXPECT_EQ(due->token, "coder");

  // Fired before the deadline (a clock behind): nothing expired, nothing fails.
  dispatcher_.CheckSchedulingDeadlines("coder", due->due_ms);
  EXPECT_EQ(Run().FindTask("a")->task().state(), v1::TASK_STATE_READY);
}

TEST_F(DispatcherTest, SchedulingCheck_NoWorkerByTheDeadline_FailsTheTask) {
  QueueA();
  std::optional<Timer> due = timers_.PopDue(kNow + kSchedulingTimeoutMs);
  ASSERT_TRUE(due.has_value());
  f_.batch().Begin(kNow + kSchedulingTimeoutMs);
  dispatcher_.CheckSchedulingDeadlines("coder", due->due_ms);
  const store::TaskRecord& task = *Run().FindTask("a");
  EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.task().error(),
              HasSubstr("no worker offers agent 'coder' (available: none, no worker is "
                        "connected)"));
}

}  // namespace
}  // namespace taskboard::engine
