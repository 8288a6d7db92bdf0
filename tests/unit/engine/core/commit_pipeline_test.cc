// The engine's commit pipeline: a batch's effects (replies, dispatches,
// published events) never run before the batch is written, they run in
// batch order, the loop's own reads see every batch it handed over, and a
// batch with nothing to overlap is written on the loop's thread.

#include "scheduler/engine/core/commit_pipeline.h"

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/memory_store.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

store::WriteBatch Put(const std::string& key, const std::string& value) {
  store::WriteBatch batch;
  batch.Put(store::Column::kMeta, key, value);
  return batch;
}

std::optional<std::string> Read(store::Store& store, const std::string& key) {
  absl::StatusOr<std::optional<std::string>> value = store.Get(store::Column::kMeta, key);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : std::nullopt;
}

// A store whose writes wait until the test lets them through, and which
// records whether a read reached it while a write was still held.
class GatedStore : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  absl::Status Write(const store::WriteBatch& batch) override {
    absl::MutexLock lock(&mu_);
    writing_ = true;
    mu_.Await(absl::Condition(&open_));
    absl::Status written = inner_.Write(batch);
    ++written_;
    return written;
  }
  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override {
    {
      absl::MutexLock lock(&mu_);
      // The write handed over before this read has not reached the disk.
      if (written_ == 0) read_ahead_of_write_ = true;
      open_ = true;  // never leave the writer stuck, whatever happened
    }
    return inner_.Get(column, key);
  }

  void WaitUntilWriting() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&writing_));
  }
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }
  bool read_ahead_of_write() {
    absl::MutexLock lock(&mu_);
    return read_ahead_of_write_;
  }

 private:
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int written_ ABSL_GUARDED_BY(mu_) = 0;
  bool read_ahead_of_write_ ABSL_GUARDED_BY(mu_) = false;
};

TEST(CommitPipeline, Effects_RunAfterTheirBatchIsWritten_InBatchOrder) {
  store::MemoryStore store;
  std::vector<std::optional<std::string>> seen;
  {
    CommitPipeline pipeline(&store, nullptr);
    for (int i = 0; i < 20; ++i) {
      const std::string key = "k" + std::to_string(i);
      CommitPipeline::Effects effects;
      // Each effect reads its own batch's key: it must already be there.
      effects.push_back([&store, &seen, key] { seen.push_back(Read(store, key)); });
      pipeline.Commit(Put(key, std::to_string(i)), std::move(effects), /*more_work=*/true);
    }
    pipeline.Drain();
    ASSERT_EQ(seen.size(), 20u);
  }
  for (int i = 0; i < 20; ++i) EXPECT_THAT(seen[i], Optional(std::to_string(i))) << i;
}

TEST(CommitPipeline, ReadThroughThePipelinedStore_WaitsForTheLoopsOwnWrites) {
  store::MemoryStore memory;
  GatedStore gated(memory);
  CommitPipeline pipeline(&gated, nullptr);
  PipelinedStore loop_store(&gated, &pipeline);

  pipeline.Commit(Put("run", "written"), {}, /*more_work=*/true);
  gated.WaitUntilWriting();  // the pipeline's thread holds the write
  std::optional<std::string> read;
  absl::Notification reading;
  std::thread reader([&] {
    reading.Notify();
    read = Read(loop_store, "run");
  });
  // Let the write through only once the reader is on its way; a read that
  // did not wait for the write reaches the store first and is caught there.
  reading.WaitForNotification();
  gated.Open();
  reader.join();

  EXPECT_FALSE(gated.read_ahead_of_write());
  EXPECT_THAT(read, Optional(std::string("written")));
}

TEST(CommitPipeline, NothingInFlightAndNoMoreWork_WritesOnTheCallersThread) {
  store::MemoryStore store;
  CommitPipeline pipeline(&store, nullptr);
  std::thread::id ran_on;
  CommitPipeline::Effects effects;
  effects.push_back([&ran_on] { ran_on = std::this_thread::get_id(); });

  pipeline.Commit(Put("k", "v"), std::move(effects), /*more_work=*/false);

  // Done on return, without Drain: it ran here.
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_THAT(Read(store, "k"), Optional(std::string("v")));
}

TEST(CommitPipeline, MoreWork_HandsTheBatchToThePipelinesThread) {
  store::MemoryStore store;
  CommitPipeline pipeline(&store, nullptr);
  std::thread::id ran_on;
  CommitPipeline::Effects effects;
  effects.push_back([&ran_on] { ran_on = std::this_thread::get_id(); });

  pipeline.Commit(Put("k", "v"), std::move(effects), /*more_work=*/true);
  pipeline.Drain();

  EXPECT_NE(ran_on, std::thread::id());
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(CommitPipeline, BatchInFlight_ALaterOneWaitsItsTurnEvenWithNothingElseToDo) {
  store::MemoryStore memory;
  GatedStore gated(memory);
  CommitPipeline pipeline(&gated, nullptr);
  std::vector<int> order;
  absl::Mutex order_mu;
  auto record = [&](int n) {
    return [&, n] {
      absl::MutexLock lock(&order_mu);
      order.push_back(n);
    };
  };
  CommitPipeline::Effects first;
  first.push_back(record(1));
  pipeline.Commit(Put("a", "1"), std::move(first), /*more_work=*/true);
  gated.WaitUntilWriting();
  // The loop has nothing else to do, but batch 1 is still being written:
  // batch 2 must not overtake it by writing on this thread.
  std::thread second_commit([&] {
    CommitPipeline::Effects second;
    second.push_back(record(2));
    pipeline.Commit(Put("b", "2"), std::move(second), /*more_work=*/false);
  });
  gated.Open();
  second_commit.join();
  pipeline.Drain();

  EXPECT_THAT(order, ElementsAre(1, 2));
}

TEST(CommitPipeline, Destroyed_WritesAndRunsWhatWasHandedOver) {
  store::MemoryStore store;
  std::atomic<int> effects_run{0};
  {
    CommitPipeline pipeline(&store, nullptr, /*max_in_flight=*/4);
    for (int i = 0; i < 4; ++i) {
      CommitPipeline::Effects effects;
      effects.push_back([&effects_run] { ++effects_run; });
      pipeline.Commit(Put("k" + std::to_string(i), "v"), std::move(effects), /*more_work=*/true);
    }
  }
  EXPECT_EQ(effects_run.load(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Read(store, "k" + std::to_string(i)).has_value()) << i;
}

TEST(CommitPipeline, OnWritten_ReportsEachNonEmptyBatch) {
  store::MemoryStore store;
  std::vector<int64_t> bytes;
  {
    CommitPipeline pipeline(
        &store, [&bytes](int64_t written, absl::Duration) { bytes.push_back(written); });
    pipeline.Commit(Put("key", "value"), {}, /*more_work=*/true);
    pipeline.Commit(store::WriteBatch(), {}, /*more_work=*/true);  // effects only
    pipeline.Drain();
  }
  EXPECT_THAT(bytes, ElementsAre(8));  // "key" + "value"
}

}  // namespace
}  // namespace taskboard::engine
