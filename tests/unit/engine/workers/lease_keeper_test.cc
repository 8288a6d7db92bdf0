#include "scheduler/engine/workers/lease_keeper.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/worker_streams.h"
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

class RecordingWorkerListener final : public WorkerListener {
 public:
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) override {
    ended.emplace_back(std::string(lease_id),
                       was_held == nullptr ? std::nullopt : std::optional(*was_held));
  }
  std::vector<std::pair<std::string, std::optional<dispatch::Lease>>> ended;
};

class LeaseKeeperTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;

  LeaseKeeperTest() {
    leases_.AddListener(&listener_);
    run_id_ = f_.Start(kOneTask);
  }

  // Task `a` dispatched under `lease_id` to w1 (stream 1, identity tok-1).
  void Dispatch(const std::string& lease_id, uint64_t stream_id = 1) {
    RunState& run = *f_.runs().active().Find(run_id_)->state;
    MarkDispatched(run.MutableTask("a"), lease_id, "w1", kNow);
    leases_.Grant({lease_id, run_id_, "a", "w1", "tok-1", stream_id, kNow + 30'000});
  }
  std::shared_ptr<RecordingChannel> Connect(uint64_t stream_id, const std::string& identity,
                                            v1::Hello hello = {}) {
    hello.set_worker_id("w1");
    hello.set_slots(1);
    auto channel = std::make_shared<RecordingChannel>();
    streams_.Add(stream_id, hello, channel, identity);
    return channel;
  }
  const store::TaskRecord& TaskA() {
    return *f_.runs().active().Find(run_id_)->state->FindTask("a");
  }

  RunsFixture f_;
  std::string run_id_;
  WorkerStreams streams_{&f_.batch()};
  LeaseKeeper leases_{
      {&f_.store(), 30'000, 3, nullptr}, &f_.batch(), &f_.runs().active(), &streams_};
  RecordingWorkerListener listener_;
};

TEST_F(LeaseKeeperTest, Current_SupersededLease_IsNull) {
  Dispatch("lease-1");
  f_.batch().ClearTouched();
  std::optional<LeaseKeeper::Covered> covered = leases_.Current("lease-1", "a");
  ASSERT_TRUE(covered.has_value());
  EXPECT_EQ(covered->task->task().task_id(), "a");
  EXPECT_THAT(f_.batch().touched(), ElementsAre(run_id_));
  EXPECT_FALSE(leases_.Current("lease-1", "b").has_value());

  // Dispatched again under another lease: the first one fences nothing.
  Dispatch("lease-2");
  EXPECT_FALSE(leases_.Current("lease-1", "a").has_value());
  EXPECT_TRUE(leases_.Current("lease-2", "a").has_value());
}

TEST_F(LeaseKeeperTest, End_HeldLease_ListenersSeeItsEntry) {
  Dispatch("lease-1");
  leases_.End("lease-1");
  ASSERT_THAT(listener_.ended, SizeIs(1));
  EXPECT_EQ(listener_.ended[0].first, "lease-1");
  ASSERT_TRUE(listener_.ended[0].second.has_value());
  EXPECT_EQ(listener_.ended[0].second->stream_id, 1u);
  EXPECT_EQ(leases_.Find("lease-1"), nullptr);
}

TEST_F(LeaseKeeperTest, End_ExpiredLease_ListenersSeeNoHeldLease) {
  std::shared_ptr<RecordingChannel> channel = Connect(1, "tok-1");
  Dispatch("lease-1");
  ASSERT_TRUE(leases_.SweepDue(kNow + 31'000));
  leases_.ExpireDue(kNow + 31'000);
  // It left the table before it was lost: nothing held to credit back.
  ASSERT_THAT(listener_.ended, SizeIs(1));
  EXPECT_FALSE(listener_.ended[0].second.has_value());
  EXPECT_NE(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_TRUE(streams_.Find(1)->silent);
  f_.Commit();
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].cancel().reason(), "lease expired");
  // The next sweep is 200 ms later.
  EXPECT_FALSE(leases_.SweepDue(kNow + 31'100));
}

TEST_F(LeaseKeeperTest, Reconnect_WrongIdentity_Revoked) {
  Dispatch("lease-1", /*stream_id=*/0);
  v1::Hello hello;
  v1::HeldTask& held = *hello.add_held_tasks();
  held.set_lease_id("lease-1");
  held.set_task_id("a");
  Connect(2, "tok-other", hello);
  v1::Welcome welcome;
  EXPECT_EQ(leases_.OnHello(*streams_.Find(2), hello, welcome), 0u);
  EXPECT_THAT(welcome.revoked_lease_ids(), ElementsAre("lease-1"));
  // Another token says nothing of the holder's task: it keeps waiting.
  EXPECT_THAT(listener_.ended, IsEmpty());
  EXPECT_EQ(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
}

TEST_F(LeaseKeeperTest, Reconnect_SameWorkerAndIdentity_ReattachesTheLease) {
  Dispatch("lease-1", /*stream_id=*/0);
  v1::Hello hello;
  v1::HeldTask& held = *hello.add_held_tasks();
  held.set_lease_id("lease-1");
  held.set_task_id("a");
  Connect(2, "tok-1", hello);
  v1::Welcome welcome;
  EXPECT_EQ(leases_.OnHello(*streams_.Find(2), hello, welcome), 1u);
  EXPECT_THAT(welcome.revoked_lease_ids(), IsEmpty());
  EXPECT_EQ(leases_.Find("lease-1")->stream_id, 2u);
}

TEST_F(LeaseKeeperTest, Reconnect_WithoutTheTask_LosesIt) {
  Dispatch("lease-1", /*stream_id=*/0);
  Connect(2, "tok-1");
  v1::Welcome welcome;
  EXPECT_EQ(leases_.OnHello(*streams_.Find(2), v1::Hello(), welcome), 0u);
  ASSERT_THAT(listener_.ended, SizeIs(1));
  EXPECT_EQ(leases_.Find("lease-1"), nullptr);
  EXPECT_NE(TaskA().task().state(), v1::TASK_STATE_DISPATCHED);
}

TEST_F(LeaseKeeperTest, Revoke_CancelsOnTheHoldersStreamAndEndsTheLease) {
  std::shared_ptr<RecordingChannel> channel = Connect(1, "tok-1");
  Dispatch("lease-1");
  leases_.Revoke({"lease-1", "lease-gone"}, "");
  ASSERT_THAT(listener_.ended, SizeIs(1));
  f_.Commit();
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].cancel().lease_id(), "lease-1");
  EXPECT_EQ(sent[0].cancel().reason(), "run cancelled");
}

}  // namespace
}  // namespace taskboard::engine
