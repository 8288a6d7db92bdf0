#include "scheduler/engine/workers/worker_streams.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/engine/core/loop_batch.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/recording_channel.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

class WorkerStreamsTest : public ::testing::Test {
 protected:
  WorkerStreamsTest() { batch_.Begin(1'000); }

  // A stream of `worker_id` (process `incarnation`) with `slots` free.
  std::shared_ptr<RecordingChannel> Connect(uint64_t stream_id, const std::string& worker_id,
                                            int slots, const std::string& incarnation = "p1") {
    v1::Hello hello;
    hello.set_worker_id(worker_id);
    hello.set_incarnation(incarnation);
    hello.set_slots(slots);
    hello.add_agents()->set_name("coder");
    auto channel = std::make_shared<RecordingChannel>();
    streams_.Add(stream_id, hello, channel, "token-" + worker_id);
    return channel;
  }
  // What the batch promised to send, as if it was written.
  void Commit() {
    for (auto& effect : batch_.TakeEffects()) effect();
  }

  LoopBatch batch_;
  dispatch::LeaseTable leases_;
  WorkerStreams streams_{&batch_};
};

TEST_F(WorkerStreamsTest, Credits_CappedAtTheSlotsTheProcessFirstDeclared) {
  Connect(1, "w1", 2);
  streams_.Remove(1);
  // The same process reconnects with one slot free (one task still runs):
  // its capacity stays the two slots its first Hello declared.
  Connect(2, "w1", 1);
  dispatch::ConnectedWorker* worker = streams_.Find(2);
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->capacity, 2);
  v1::Credits credits;
  credits.set_slots(5);
  streams_.OnCredits(*worker, credits);
  EXPECT_EQ(worker->credits, 2);
  credits.set_slots(-3);
  streams_.OnCredits(*worker, credits);
  EXPECT_EQ(worker->credits, 2);
}

TEST_F(WorkerStreamsTest, SendTo_SentOnlyOnceTheBatchIsWritten_DroppedForAStreamGone) {
  std::shared_ptr<RecordingChannel> channel = Connect(1, "w1", 1);
  v1::ConnectResponse message;
  message.mutable_cancel()->set_task_id("t");
  streams_.SendTo(1, message);
  streams_.SendTo(7, message);
  EXPECT_THAT(channel->Take(), SizeIs(0));
  Commit();
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].cancel().task_id(), "t");
}

TEST_F(WorkerStreamsTest, Drain_SendsDrainAndStopsAssignments) {
  std::shared_ptr<RecordingChannel> channel = Connect(1, "w1", 1);
  v1::Credits credits;
  credits.set_slots(1);
  streams_.OnCredits(*streams_.Find(1), credits);
  ASSERT_NE(streams_.registry().Pick("coder"), nullptr);

  absl::StatusOr<v1::WorkerInfo> drained = streams_.Drain("w1", 0, "", leases_);
  ASSERT_TRUE(drained.ok());
  EXPECT_TRUE(drained->draining());
  EXPECT_EQ(streams_.registry().Pick("coder"), nullptr);
  Commit();
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].drain().grace_ms(), 30'000);
  EXPECT_EQ(sent[0].drain().reason(), "drained by an operator");
}

TEST_F(WorkerStreamsTest, Drain_UnknownWorker_NotFoundListingTheConnectedIds) {
  Connect(1, "w2", 1);
  Connect(2, "w1", 1, "p2");
  EXPECT_THAT(streams_.Drain("w9", 1'000, "bye", leases_),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("(connected: w1, w2)")));
}

TEST_F(WorkerStreamsTest, List_SortedByWorkerId_WithTheirRunningTasks) {
  Connect(1, "w2", 1);
  Connect(2, "w1", 1, "p2");
  leases_.Add({"lease-1", "run", "task", "w2", "token-w2", 1, 60'000});
  std::vector<v1::WorkerInfo> listed = streams_.List(leases_);
  ASSERT_THAT(listed, SizeIs(2));
  EXPECT_EQ(listed[0].worker_id(), "w1");
  EXPECT_EQ(listed[0].running(), 0);
  EXPECT_EQ(listed[1].worker_id(), "w2");
  EXPECT_EQ(listed[1].running(), 1);
  EXPECT_THAT(listed[1].agents(), ElementsAre("coder"));
}

TEST_F(WorkerStreamsTest, Heard_EndsSilence_AndIsNullBeforeHello) {
  Connect(1, "w1", 1);
  streams_.Silence(1);
  EXPECT_TRUE(streams_.Find(1)->silent);
  batch_.Begin(5'000);
  dispatch::ConnectedWorker* heard = streams_.Heard(1);
  ASSERT_NE(heard, nullptr);
  EXPECT_FALSE(heard->silent);
  EXPECT_EQ(heard->last_heard_ms, 5'000);
  EXPECT_EQ(streams_.Heard(2), nullptr);
}

}  // namespace
}  // namespace taskboard::engine
