// A write beside the engine's commit (a saved flow, written from an RPC
// thread) on a replicated scheduler's leader
// (docs/high-availability.md#acknowledged-writes): reads from other threads
// (Engine::store()) show it only once the replication gate released it,
// whether its writer waited (AwaitReplicated) or a later read asked
// (RefreshReads), and even when the engine itself writes nothing after it.

#include <optional>
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/memory_store.h"
#include "tests/unit/engine/core/fake_replication.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::testing::Optional;

using testing::FakeGate;
using testing::NumberingStore;


class SavedWritesVisibilityTest : public ::testing::Test {
 protected:
  SavedWritesVisibilityTest() {
    EngineOptions options = testing::EngineHarness::DefaultOptions();
    options.replication_gate = &gate_;
    harness_.emplace(options);
    harness_->store_override = &numbering_;
    harness_->Restart();
  }

  // A write beside the engine, as SavedFlows::Save makes one.
  void WriteBeside(const std::string& key) {
    store::WriteBatch batch;
    batch.Put(store::Column::kFlows, key, "v");
    ASSERT_TRUE(numbering_.Write(batch).ok());
  }
  std::optional<std::string> Read(const std::string& key) {
    absl::StatusOr<std::optional<std::string>> value =
        harness_->engine().store().Get(store::Column::kFlows, key);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : std::nullopt;
  }

  store::MemoryStore memory_;
  NumberingStore numbering_{memory_};
  FakeGate gate_{&numbering_};
  std::optional<testing::EngineHarness> harness_;
};

TEST_F(SavedWritesVisibilityTest, AwaitReplicated_NotReleased_UnavailableAndNotShown) {
  WriteBeside("flow");
  const absl::Status acked =
      harness_->engine().AwaitReplicated(absl::Now() + absl::Milliseconds(50));
  EXPECT_EQ(acked.code(), absl::StatusCode::kUnavailable) << acked;
  EXPECT_THAT(acked.message(), ::testing::HasSubstr("read it back or save it again"));
  EXPECT_EQ(Read("flow"), std::nullopt);
}

TEST_F(SavedWritesVisibilityTest, AwaitReplicated_Released_ShownBeforeItReturns) {
  WriteBeside("flow");
  gate_.ReleaseUpTo(1);
  ASSERT_TRUE(harness_->engine().AwaitReplicated(absl::Now() + absl::Seconds(5)).ok());
  EXPECT_THAT(Read("flow"), Optional(std::string("v")));
}

// The writer's reply timed out; the followers caught up later and the engine
// wrote nothing since: the next read shows it, and only once released.
TEST_F(SavedWritesVisibilityTest, RefreshReads_ShowsAWriteOnceReleased_NeverBefore) {
  WriteBeside("flow");
  ASSERT_FALSE(harness_->engine().AwaitReplicated(absl::Now()).ok());
  harness_->engine().RefreshReads();
  EXPECT_EQ(Read("flow"), std::nullopt);

  gate_.ReleaseUpTo(1);
  harness_->engine().RefreshReads();
  EXPECT_THAT(Read("flow"), Optional(std::string("v")));
}

}  // namespace
}  // namespace taskboard::engine
