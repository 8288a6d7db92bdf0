// The commit pipeline with a ReplicationGate (a replicated scheduler's
// leader, docs/high-availability.md#acknowledged-writes): a written batch's
// effects wait until the gate releases its log index, run in batch order,
// the loop's own reads never wait for the gate, the written-but-unreleased
// batches are bounded, and Abandon drops what was not released.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/core/acked_store.h"
#include "scheduler/engine/core/commit_pipeline.h"
#include "scheduler/engine/core/replication_gate.h"
#include "scheduler/store/memory_store.h"
#include "tests/unit/engine/core/fake_replication.h"

namespace taskboard::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

store::WriteBatch Put(const std::string& key) {
  store::WriteBatch batch;
  batch.Put(store::Column::kMeta, key, "v");
  return batch;
}

using testing::FakeGate;
using testing::NumberingStore;

// Effects that record their number, from any thread.
class Recorder {
 public:
  CommitPipeline::Effects Effect(int n) {
    CommitPipeline::Effects effects;
    effects.push_back([this, n] {
      absl::MutexLock lock(&mu_);
      seen_.push_back(n);
    });
    return effects;
  }
  std::vector<int> seen() {
    absl::MutexLock lock(&mu_);
    return seen_;
  }
  void WaitFor(size_t count) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, count]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return seen_.size() >= count; };
    mu_.Await(absl::Condition(&enough));
  }

 private:
  absl::Mutex mu_;
  std::vector<int> seen_ ABSL_GUARDED_BY(mu_);
};

struct Fixture {
  store::MemoryStore memory;
  NumberingStore store{memory};
  FakeGate gate{&store};
  Recorder recorder;
};

TEST(CommitPipelineGate, WrittenBatch_EffectsHeldUntilTheGateReleasesItsIndex) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate);

  pipeline.Commit(Put("k1"), f.recorder.Effect(1), /*more_work=*/false);
  pipeline.WaitWritten();
  // Written (the loop reads its own writes without waiting for acks) ...
  EXPECT_THAT(f.memory.Get(store::Column::kMeta, "k1").value(), Optional(std::string("v")));
  // ... but refused by the gate twice, and not run.
  f.gate.WaitAsked(1, 2);
  EXPECT_THAT(f.recorder.seen(), IsEmpty());
  EXPECT_FALSE(pipeline.DrainUntil(absl::Now() + absl::Milliseconds(20)));

  f.gate.ReleaseUpTo(1);
  pipeline.Drain();
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1));
}

TEST(CommitPipelineGate, PartialRelease_RunsOnlyReleasedBatches_InBatchOrder) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate);
  for (int n = 1; n <= 3; ++n) {
    pipeline.Commit(Put("k" + std::to_string(n)), f.recorder.Effect(n), /*more_work=*/true);
  }
  pipeline.WaitWritten();

  f.gate.ReleaseUpTo(2);
  f.recorder.WaitFor(2);
  f.gate.WaitAsked(3, 2);  // the third was looked at and refused
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1, 2));

  f.gate.ReleaseUpTo(3);
  pipeline.Drain();
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1, 2, 3));
}

TEST(CommitPipelineGate, EmptyBatch_WaitsForTheIndexBeforeIt) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate);
  pipeline.Commit(Put("k1"), f.recorder.Effect(1), /*more_work=*/true);
  // A reply with nothing to write may still reveal batch 1's state.
  pipeline.Commit(store::WriteBatch(), f.recorder.Effect(2), /*more_work=*/true);
  pipeline.WaitWritten();
  f.gate.WaitAsked(1, 2);
  EXPECT_THAT(f.recorder.seen(), IsEmpty());

  f.gate.ReleaseUpTo(1);
  pipeline.Drain();
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1, 2));
}

TEST(CommitPipelineGate, MaxUnacked_CommitBlocksTheLoopUntilARelease) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate, /*max_unacked=*/2);
  pipeline.Commit(Put("k1"), f.recorder.Effect(1), /*more_work=*/false);
  pipeline.Commit(Put("k2"), f.recorder.Effect(2), /*more_work=*/false);
  pipeline.WaitWritten();

  absl::Notification third_returned;
  std::thread loop([&] {
    pipeline.Commit(Put("k3"), f.recorder.Effect(3), /*more_work=*/false);
    third_returned.Notify();
  });
  // Two written batches wait for acks: the third hand-over blocks.
  EXPECT_FALSE(third_returned.WaitForNotificationWithTimeout(absl::Milliseconds(200)));
  EXPECT_THAT(f.memory.Get(store::Column::kMeta, "k3").value(), std::nullopt);

  f.gate.ReleaseUpTo(1);
  third_returned.WaitForNotification();
  loop.join();
  f.gate.ReleaseUpTo(3);
  pipeline.Drain();
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1, 2, 3));
}

TEST(CommitPipelineGate, Abandon_DropsUnreleasedAndLaterEffects_AndCountsThem) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate);
  pipeline.Commit(Put("k1"), f.recorder.Effect(1), /*more_work=*/true);
  pipeline.Commit(Put("k2"), f.recorder.Effect(2), /*more_work=*/true);
  pipeline.WaitWritten();
  f.gate.ReleaseUpTo(1);
  f.recorder.WaitFor(1);

  EXPECT_EQ(pipeline.Abandon(), 1u);  // batch 2's one effect
  // Drain no longer waits for what was dropped; a later batch is written
  // but its effects are dropped too, even once the gate would release it.
  pipeline.Commit(Put("k3"), f.recorder.Effect(3), /*more_work=*/false);
  f.gate.ReleaseUpTo(3);
  pipeline.Drain();

  EXPECT_THAT(f.recorder.seen(), ElementsAre(1));
  EXPECT_EQ(pipeline.dropped_effects(), 2u);
  EXPECT_THAT(f.memory.Get(store::Column::kMeta, "k3").value(), Optional(std::string("v")));
}

TEST(CommitPipelineGate, Destroyed_WritesEverythingButDropsUnreleasedEffects) {
  Fixture f;
  {
    CommitPipeline pipeline(&f.store, nullptr, 4, &f.gate);
    for (int n = 1; n <= 3; ++n) {
      pipeline.Commit(Put("k" + std::to_string(n)), f.recorder.Effect(n), /*more_work=*/true);
    }
    pipeline.WaitWritten();
    f.gate.ReleaseUpTo(1);
    f.recorder.WaitFor(1);
  }
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1));
  for (int n = 1; n <= 3; ++n) {
    EXPECT_TRUE(f.memory.Get(store::Column::kMeta, "k" + std::to_string(n)).value().has_value());
  }
}

// What another thread reads of a batch (GetRun, WatchRun's replay): nothing
// until the gate released it, and then before its effects run, so a reply is
// never ahead of a read.
std::optional<std::string> ReadKey(store::Store& store, const std::string& key) {
  absl::StatusOr<std::optional<std::string>> value = store.Get(store::Column::kMeta, key);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : std::nullopt;
}

TEST(CommitPipelineGate, AckedStore_ShowsABatchOnlyOnceReleased_BeforeItsEffectsRun) {
  Fixture f;
  AckedStore acked(&f.store);
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate, CommitPipeline::kDefaultMaxUnacked,
                          &acked);
  std::optional<std::string> seen_by_effect;
  CommitPipeline::Effects reply;
  reply.push_back([&] { seen_by_effect = ReadKey(acked, "k1"); });
  pipeline.Commit(Put("k1"), std::move(reply), /*more_work=*/false);
  pipeline.Commit(Put("k2"), {}, /*more_work=*/true);
  pipeline.WaitWritten();
  f.gate.WaitAsked(1, 2);
  // Both on the leader's disk, neither acknowledged: other threads see none.
  EXPECT_THAT(ReadKey(f.memory, "k2"), Optional(std::string("v")));
  EXPECT_EQ(ReadKey(acked, "k1"), std::nullopt);

  f.gate.ReleaseUpTo(1);
  f.gate.WaitAsked(2, 2);
  EXPECT_THAT(seen_by_effect, Optional(std::string("v")));
  EXPECT_THAT(ReadKey(acked, "k1"), Optional(std::string("v")));
  EXPECT_EQ(ReadKey(acked, "k2"), std::nullopt);

  // An empty batch keeps the view of the batch before it.
  pipeline.Commit(store::WriteBatch(), {}, /*more_work=*/true);
  f.gate.ReleaseUpTo(2);
  pipeline.Drain();
  EXPECT_THAT(ReadKey(acked, "k2"), Optional(std::string("v")));
}

TEST(CommitPipelineGate, AckedStore_AbandonedBatchNeverBecomesVisible) {
  Fixture f;
  // What the leader held when it took over is visible from the start.
  ASSERT_TRUE(f.store.Write(Put("before")).ok());
  AckedStore acked(&f.store);
  EXPECT_THAT(ReadKey(acked, "before"), Optional(std::string("v")));
  {
    CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate, CommitPipeline::kDefaultMaxUnacked,
                            &acked);
    pipeline.Commit(Put("lost"), {}, /*more_work=*/false);
    pipeline.WaitWritten();
    f.gate.WaitAsked(2, 1);
    pipeline.Abandon();
    f.gate.ReleaseUpTo(2);  // too late: the leader stepped down
  }
  EXPECT_EQ(ReadKey(acked, "lost"), std::nullopt);
  // Writes go through the engine's commit, never through the view.
  EXPECT_EQ(acked.Write(Put("x")).code(), absl::StatusCode::kFailedPrecondition);
}

// A saved flow is written beside the pipeline and published by its writer
// once released (Engine::AwaitReplicated); the pipeline's release of an
// earlier batch, published after it, must not hide the flow again.
TEST(CommitPipelineGate, AckedStore_AWriteBesideThePipeline_NeverHiddenByAnOlderRelease) {
  Fixture f;
  AckedStore acked(&f.store);
  CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate, CommitPipeline::kDefaultMaxUnacked,
                          &acked);
  pipeline.Commit(Put("run"), {}, /*more_work=*/false);
  pipeline.WaitWritten();
  f.gate.WaitAsked(1, 1);

  ASSERT_TRUE(f.store.Write(Put("flow")).ok());
  std::shared_ptr<store::Store> snapshot = f.store.ReadSnapshot();
  const uint64_t index = f.gate.WrittenIndex();
  ASSERT_EQ(index, 2u);
  EXPECT_EQ(ReadKey(acked, "flow"), std::nullopt);

  // The flow's writer sees index 2 released before the pipeline's release
  // thread publishes index 1.
  acked.Publish(snapshot, index);
  EXPECT_THAT(ReadKey(acked, "flow"), Optional(std::string("v")));
  f.gate.ReleaseUpTo(2);
  pipeline.Drain();
  EXPECT_THAT(ReadKey(acked, "flow"), Optional(std::string("v")));
  EXPECT_THAT(ReadKey(acked, "run"), Optional(std::string("v")));
}

// The replica's ack-latency metric: each written batch's wait from its
// write to its release, at least as long as the gate held it; an empty
// batch waited for nothing and an abandoned one was never released.
TEST(CommitPipelineGate, OnReleased_TellsEachWrittenBatchsWait_NotEmptyOrAbandonedOnes) {
  Fixture f;
  absl::Mutex mu;
  std::vector<absl::Duration> waits;
  {
    CommitPipeline pipeline(&f.store, nullptr, 2, &f.gate, CommitPipeline::kDefaultMaxUnacked,
                            nullptr, [&](absl::Duration waited) {
                              absl::MutexLock lock(&mu);
                              waits.push_back(waited);
                            });
    pipeline.Commit(Put("k1"), {}, /*more_work=*/false);
    pipeline.WaitWritten();
    const absl::Time written = absl::Now();
    f.gate.WaitAsked(1, 2);  // refused at least once: held
    const absl::Duration held = absl::Now() - written;
    f.gate.ReleaseUpTo(1);
    pipeline.Commit(store::WriteBatch(), {}, /*more_work=*/false);
    pipeline.Drain();
    {
      absl::MutexLock lock(&mu);
      ASSERT_EQ(waits.size(), 1u) << "the empty batch waited for nothing";
      EXPECT_GE(waits[0], held);
    }
    pipeline.Commit(Put("k2"), {}, /*more_work=*/false);
    pipeline.WaitWritten();
    f.gate.WaitAsked(2, 1);
    pipeline.Abandon();
    f.gate.ReleaseUpTo(2);
  }
  absl::MutexLock lock(&mu);
  EXPECT_EQ(waits.size(), 1u) << "an abandoned batch was never released";
}

TEST(CommitPipelineGate, NoGate_EffectsRunWithTheWriteAndAbandonDoesNothing) {
  Fixture f;
  CommitPipeline pipeline(&f.store, nullptr);
  pipeline.Commit(Put("k1"), f.recorder.Effect(1), /*more_work=*/false);
  // Ran before Commit returned, with no gate asked.
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1));
  EXPECT_EQ(pipeline.Abandon(), 0u);
  pipeline.Commit(Put("k2"), f.recorder.Effect(2), /*more_work=*/true);
  pipeline.Drain();
  EXPECT_THAT(f.recorder.seen(), ElementsAre(1, 2));
  EXPECT_EQ(pipeline.dropped_effects(), 0u);
}

}  // namespace
}  // namespace taskboard::engine
