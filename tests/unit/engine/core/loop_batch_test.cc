#include "scheduler/engine/core/loop_batch.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/engine/recording_channel.h"

namespace taskboard::engine {
namespace {

using testing::RecordingChannel;

TEST(LoopBatch, Send_GoesOutOnlyWhenTheEffectsRun) {
  LoopBatch batch;
  auto channel = std::make_shared<RecordingChannel>();
  v1::ConnectResponse message;
  message.mutable_cancel()->set_task_id("t1");
  batch.Send(channel, message);
  EXPECT_TRUE(channel->Take().empty());

  for (auto& effect : batch.TakeEffects()) effect();
  std::vector<v1::ConnectResponse> sent = channel->Take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].cancel().task_id(), "t1");
}

TEST(LoopBatch, TakeEffects_KeepsTheOrderTheyWereQueuedIn_AndEmptiesTheBatch) {
  LoopBatch batch;
  std::vector<int> ran;
  batch.AfterCommit([&] { ran.push_back(1); });
  auto channel = std::make_shared<RecordingChannel>();
  batch.Send(channel, v1::ConnectResponse());
  batch.AfterCommit([&] { ran.push_back(channel->Take().size() == 1 ? 2 : -2); });

  LoopBatch::Effects effects = batch.TakeEffects();
  EXPECT_TRUE(batch.TakeEffects().empty());
  for (auto& effect : effects) effect();
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
}

TEST(LoopBatch, TakeWrites_HandsOverTheWrites_AndStartsAnEmptyBatch) {
  LoopBatch batch;
  batch.writes().Put(store::Column::kMeta, "k", "v");
  store::WriteBatch taken = batch.TakeWrites();
  ASSERT_EQ(taken.ops().size(), 1u);
  EXPECT_EQ(taken.ops()[0].key, "k");
  EXPECT_TRUE(batch.writes().empty());
}

TEST(LoopBatch, Touch_KeepsEachRunOnceInIdOrder_UntilCleared) {
  LoopBatch batch;
  batch.Touch("r2");
  batch.Touch("r1");
  batch.Touch("r2");
  EXPECT_EQ(std::vector<std::string>(batch.touched().begin(), batch.touched().end()),
            (std::vector<std::string>{"r1", "r2"}));
  batch.ClearTouched();
  EXPECT_TRUE(batch.touched().empty());
}

TEST(LoopBatch, Begin_SetsTheBatchTime) {
  LoopBatch batch;
  batch.Begin(1'700'000'000'123);
  EXPECT_EQ(batch.now_ms(), 1'700'000'000'123);
  EXPECT_EQ(batch.now(), absl::FromUnixMillis(1'700'000'000'123));
}

}  // namespace
}  // namespace taskboard::engine
