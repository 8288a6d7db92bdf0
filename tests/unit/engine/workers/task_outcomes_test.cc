#include "scheduler/engine/workers/task_outcomes.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::RunsFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kOneTask[] = R"({"name": "one", "maxAttemptsPerTask": 2, "phases": [
    {"id": "a", "agent": "coder", "task": "A"}]})";

// The summaries' side, as PriorWorkService does it: takes the lease off
// its job, then ends it (or drops a handed-back one).
class FakeSummarySource final : public PriorWorkSource {
 public:
  explicit FakeSummarySource(LeaseKeeper* leases) : leases_(leases) {}
  Choice ChooseFor(ActiveRun&, const std::string&) override { return Choice::Send({}); }
  void SendAfterCommit(ActiveRun&, v1::ConnectResponse) override {}
  void DispatchSummaries() override {}
  void OnSummaryResult(const v1::TaskResult& result) override {
    results.push_back(result.output());
    held_when_told = leases_->Find(result.lease_id()) != nullptr;
    leases_->End(result.lease_id());
  }
  void OnSummaryReturned(absl::string_view lease_id) override {
    returned.emplace_back(lease_id);
    held_when_told = leases_->Find(lease_id) != nullptr;
    leases_->Drop(lease_id);
  }

  std::vector<std::string> results;
  std::vector<std::string> returned;
  bool held_when_told = false;

 private:
  LeaseKeeper* const leases_;
};

class EndedLeases final : public WorkerListener {
 public:
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease*) override {
    ended.emplace_back(lease_id);
  }
  std::vector<std::string> ended;
};

class TaskOutcomesTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;
  static constexpr int64_t kMaxOutputBytes = 16;

  TaskOutcomesTest() {
    outcomes_.SetPriorWork(&source_);
    leases_.AddListener(&ended_);
    run_id_ = f_.Start(kOneTask);
    v1::Hello hello;
    hello.set_worker_id("w1");
    hello.set_slots(1);
    streams_.Add(1, hello, channel_, "tok-1");
  }

  RunState& Run() { return *f_.runs().active().Find(run_id_)->state; }
  const store::TaskRecord& TaskA() { return *Run().FindTask("a"); }
  dispatch::ConnectedWorker& Worker() { return *streams_.Find(1); }
  // Task `a` dispatched to w1 on stream 1 under `lease_id`.
  void Dispatch(const std::string& lease_id, int timeout_seconds = 0) {
    store::TaskRecord& task = Run().MutableTask("a");
    MarkDispatched(task, lease_id, "w1", f_.batch().now_ms());
    task.mutable_assignment()->set_timeout_seconds(timeout_seconds);
    leases_.Grant({lease_id, run_id_, "a", "w1", "tok-1", 1, kNow + 30'000});
  }
  v1::TaskResult Result(const std::string& lease_id, std::string output) {
    v1::TaskResult result;
    result.set_task_id("a");
    result.set_lease_id(lease_id);
    result.set_success(true);
    result.set_output(std::move(output));
    return result;
  }
  // What stream 1 was sent, as if the batch was written.
  std::vector<v1::ConnectResponse> Sent() {
    for (auto& effect : f_.batch().TakeEffects()) effect();
    return channel_->Take();
  }

  RunsFixture f_;
  std::string run_id_;
  TimerQueue timers_;
  WorkerStreams streams_{&f_.batch()};
  LeaseKeeper leases_{
      {&f_.store(), 30'000, 3, nullptr}, &f_.batch(), &f_.runs().active(), &streams_};
  TaskOutcomes outcomes_{{kMaxOutputBytes, RetryBackoff{1000, 1000}, nullptr},
                         &f_.batch(),
                         &timers_,
                         &f_.runs().active(),
                         &streams_,
                         &leases_};
  FakeSummarySource source_{&leases_};
  EndedLeases ended_;
  std::shared_ptr<RecordingChannel> channel_ = std::make_shared<RecordingChannel>();
};

TEST_F(TaskOutcomesTest, OnResult_Success_CompletesEndsTheLeaseAndAcks) {
  Dispatch("lease-1");
  outcomes_.OnResult(Worker(), Result("lease-1", "done"));
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(TaskA().task().output(), "done");
  EXPECT_THAT(ended_.ended, ElementsAre("lease-1"));
  EXPECT_EQ(outcomes_.results(), 1);
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].result_ack().lease_id(), "lease-1");
  EXPECT_TRUE(sent[0].result_ack().accepted());
  EXPECT_THAT(source_.results, IsEmpty());
}

TEST_F(TaskOutcomesTest, OnResult_OutputOverTheLimit_FailsTheAttemptWithTodaysText) {
  Dispatch("lease-1");
  outcomes_.OnResult(Worker(), Result("lease-1", std::string(kMaxOutputBytes + 1, 'x')));
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_RETRYING);
  ASSERT_THAT(TaskA().task().earlier_attempts(), SizeIs(1));
  EXPECT_EQ(TaskA().task().earlier_attempts(0).ended(), attempt_end::kFailed);
  EXPECT_THAT(TaskA().task().earlier_attempts(0).detail(),
              HasSubstr("output of 17 bytes is over the scheduler's limit of 16 bytes "
                        "(--max-output-bytes); write large results to a file and output its "
                        "path"));
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_TRUE(sent[0].result_ack().accepted());

  // The retry is timed by the backoff; when it is due the task is READY.
  std::optional<Timer> retry = timers_.PopDue(kNow + 1000);
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->kind, TimerKind::kRetry);
  f_.batch().Begin(kNow + 1000);
  outcomes_.OnRetryDue(*retry);
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_READY);
}

TEST_F(TaskOutcomesTest, OnResult_SupersededLease_RefusedWithTheReason) {
  Dispatch("lease-1");
  Dispatch("lease-2");
  outcomes_.OnResult(Worker(), Result("lease-1", "late"));
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(outcomes_.results(), 0);
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_FALSE(sent[0].result_ack().accepted());
  EXPECT_EQ(sent[0].result_ack().reason(), "lease lease-1 is no longer current for task 'a'");
}

TEST_F(TaskOutcomesTest, OnResult_LateReportOfTimedOutLease_KeepsItsExecutionRecord) {
  Dispatch("lease-1", /*timeout_seconds=*/5);
  MarkRunning(Run().MutableTask("a"), kNow);
  f_.batch().Begin(kNow + 5'000);
  outcomes_.OnTimeoutDue({kNow + 5'000, TimerKind::kTaskTimeout, run_id_, "a", "lease-1"});
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_RETRYING);
  EXPECT_THAT(TaskA().task().earlier_attempts(0).detail(), HasSubstr("timed out after 5s"));
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].cancel().reason(), "task timed out");

  v1::TaskResult late = Result("lease-1", "too late");
  late.mutable_execution()->set_exit_code(137);
  outcomes_.OnResult(Worker(), late);
  EXPECT_EQ(TaskA().execution().exit_code(), 137);
  EXPECT_TRUE(TaskA().execution().stopped());
  EXPECT_EQ(TaskA().execution().stop_reason(), "timeout");
  sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_FALSE(sent[0].result_ack().accepted());
}

TEST_F(TaskOutcomesTest, OnTimeoutDue_NotStarted_CheckedAgainATimeoutLater) {
  Dispatch("lease-1", /*timeout_seconds=*/5);
  f_.batch().Begin(kNow + 5'000);
  outcomes_.OnTimeoutDue({kNow + 5'000, TimerKind::kTaskTimeout, run_id_, "a", "lease-1"});
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
  std::optional<Timer> again = timers_.PopDue(kNow + 10'000);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->due_ms, kNow + 10'000);
  EXPECT_EQ(again->token, "lease-1");
}

TEST_F(TaskOutcomesTest, OnReturned_Task_KeepsItsAttemptNumber) {
  Dispatch("lease-1");
  ASSERT_EQ(TaskA().task().attempt(), 1);
  v1::TaskReturned returned;
  returned.set_task_id("a");
  returned.set_lease_id("lease-1");
  outcomes_.OnReturned(Worker(), returned);
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_READY);
  EXPECT_EQ(TaskA().agent_failures() + TaskA().infra_failures(), 0);
  ASSERT_THAT(TaskA().task().earlier_attempts(), SizeIs(1));
  EXPECT_EQ(TaskA().task().earlier_attempts(0).ended(), attempt_end::kReturned);
  EXPECT_THAT(ended_.ended, ElementsAre("lease-1"));
  Dispatch("lease-2");
  EXPECT_EQ(TaskA().task().attempt(), 1);

  // A hand-back under a lease no longer current is acknowledged, refused.
  outcomes_.OnReturned(Worker(), returned);
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(2));
  EXPECT_TRUE(sent[0].result_ack().accepted());
  EXPECT_FALSE(sent[1].result_ack().accepted());
  EXPECT_EQ(sent[1].result_ack().reason(), "lease is no longer current");
}

TEST_F(TaskOutcomesTest, SummaryLease_HasNoTaskId_ResultGoesToTheSourceWhileHeld) {
  leases_.Grant({"lease-s", run_id_, "", "w1", "tok-1", 1, kNow + 30'000});
  v1::TaskResult result = Result("lease-s", "the narrative");
  result.set_task_id("summary@7");
  outcomes_.OnResult(Worker(), result);
  EXPECT_THAT(source_.results, ElementsAre("the narrative"));
  // Still held when the source took it off its job; ended by the source.
  EXPECT_TRUE(source_.held_when_told);
  EXPECT_THAT(ended_.ended, ElementsAre("lease-s"));
  EXPECT_EQ(outcomes_.results(), 0);
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].result_ack().task_id(), "summary@7");
  EXPECT_TRUE(sent[0].result_ack().accepted());
}

TEST_F(TaskOutcomesTest, SummaryLease_HandedBack_GoesToTheSourceWithoutEnding) {
  leases_.Grant({"lease-s", run_id_, "", "w1", "tok-1", 1, kNow + 30'000});
  v1::TaskReturned returned;
  returned.set_task_id("summary@7");
  returned.set_lease_id("lease-s");
  outcomes_.OnReturned(Worker(), returned);
  EXPECT_THAT(source_.returned, ElementsAre("lease-s"));
  EXPECT_THAT(ended_.ended, IsEmpty());
  EXPECT_EQ(leases_.Find("lease-s"), nullptr);
  std::vector<v1::ConnectResponse> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_TRUE(sent[0].result_ack().accepted());
}

}  // namespace
}  // namespace taskboard::engine
