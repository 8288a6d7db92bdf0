// The leader's replication gate over real ReplicaProgress: an index is
// released only once every in-sync member holds it, the set is at least
// --ha-sync-replicas large and the lease is valid; while the set changes
// both the old and the new members count.

#include "scheduler/ha/in_sync_gate.h"

#include <atomic>
#include <cstdint>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "scheduler/ha/replica_progress.h"

namespace taskboard::ha {
namespace {

// Short: the answer "not yet" comes at the deadline.
absl::Time Soon() { return absl::Now() + absl::Milliseconds(30); }

struct GateFixture {
  explicit GateFixture(size_t sync_replicas = 1)
      : gate(InSyncGateOptions{.sync_replicas = sync_replicas,
                               .written_index = [this] { return written.load(); },
                               .lease_valid = [this] { return lease.load(); }},
             &progress) {}

  ReplicaProgress progress;
  std::atomic<uint64_t> written{0};
  std::atomic<bool> lease{true};
  InSyncGate gate;
};

TEST(InSyncGate, NoSetYet_ReleasesNothingEvenWhenFollowersHoldIt) {
  GateFixture f;
  f.progress.Connected("b", 10);
  EXPECT_FALSE(f.gate.AwaitReleasable(3, Soon()));
  EXPECT_EQ(f.gate.released(), 0u);
}

TEST(InSyncGate, MemberHoldsTheIndex_Released) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 0);
  EXPECT_FALSE(f.gate.AwaitReleasable(3, Soon()));
  f.progress.Acked("b", 3);
  EXPECT_TRUE(f.gate.AwaitReleasable(3, Soon()));
  EXPECT_EQ(f.gate.released(), 3u);
}

TEST(InSyncGate, AckArrivingWhileWaiting_ReleasesBeforeTheDeadline) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 0);
  std::thread follower([&] {
    absl::SleepFor(absl::Milliseconds(50));
    f.progress.Acked("b", 7);
  });
  EXPECT_TRUE(f.gate.AwaitReleasable(7, absl::Now() + absl::Seconds(10)));
  follower.join();
}

TEST(InSyncGate, EveryMemberMustHoldIt_NotJustSyncReplicasOfThem) {
  GateFixture f(/*sync_replicas=*/1);
  f.gate.Changed({"b", "c"});
  f.progress.Connected("b", 5);
  f.progress.Connected("c", 2);
  EXPECT_FALSE(f.gate.AwaitReleasable(5, Soon()));
  f.progress.Acked("c", 5);
  EXPECT_TRUE(f.gate.AwaitReleasable(5, Soon()));
}

TEST(InSyncGate, FollowerOutsideTheSet_DoesNotCount) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 0);
  f.progress.Connected("c", 9);
  EXPECT_FALSE(f.gate.AwaitReleasable(4, Soon()));
}

TEST(InSyncGate, SetSmallerThanSyncReplicas_ReleasesNothing) {
  GateFixture f(/*sync_replicas=*/2);
  f.gate.Changed({"b"});
  f.progress.Connected("b", 9);
  f.progress.Connected("c", 9);
  EXPECT_FALSE(f.gate.AwaitReleasable(4, Soon()));
  f.gate.Changed({"b", "c"});
  EXPECT_TRUE(f.gate.AwaitReleasable(4, Soon()));
}

TEST(InSyncGate, LeaseNotValid_ReleasesNothingUntilItIsAgain) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 9);
  f.lease = false;
  EXPECT_FALSE(f.gate.AwaitReleasable(4, Soon()));
  EXPECT_EQ(f.gate.released(), 0u);
  f.lease = true;
  EXPECT_TRUE(f.gate.AwaitReleasable(4, Soon()));
}

TEST(InSyncGate, ReplacingAMember_NeedsBothUntilEtcdHoldsTheNewSet) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 3);
  f.progress.Connected("c", 6);
  ASSERT_TRUE(f.gate.AwaitReleasable(3, Soon()));

  // c replaces b, which lags: before etcd lists c, b still counts.
  EXPECT_EQ(f.gate.BeginChange({"c"}), 3u);
  EXPECT_FALSE(f.gate.AwaitReleasable(6, Soon()));
  f.gate.Changed({"c"});
  EXPECT_TRUE(f.gate.AwaitReleasable(6, Soon()));
}

TEST(InSyncGate, ChangeWhoseWriteFailed_KeepsNeedingBothSets) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 2);
  f.progress.Connected("c", 8);
  f.gate.BeginChange({"c"});  // and etcd's answer never came
  // A second attempt with another set still needs the first two.
  f.progress.Connected("d", 8);
  f.gate.BeginChange({"d"});
  EXPECT_FALSE(f.gate.AwaitReleasable(8, Soon()));
  f.progress.Acked("b", 8);
  EXPECT_TRUE(f.gate.AwaitReleasable(8, Soon()));
}

TEST(InSyncGate, Waiting_ReportsTheOldestUnreleasedIndexUntilReleased) {
  GateFixture f;
  f.gate.Changed({"b"});
  f.progress.Connected("b", 0);
  EXPECT_FALSE(f.gate.waiting().has_value());
  const absl::Time before = absl::Now();
  EXPECT_FALSE(f.gate.AwaitReleasable(2, Soon()));
  EXPECT_FALSE(f.gate.AwaitReleasable(2, Soon()));
  ASSERT_TRUE(f.gate.waiting().has_value());
  EXPECT_EQ(f.gate.waiting()->index, 2u);
  // Since the first time it was asked, not the last.
  EXPECT_LT(f.gate.waiting()->since, before + absl::Milliseconds(25));
  f.progress.Acked("b", 2);
  EXPECT_TRUE(f.gate.AwaitReleasable(2, Soon()));
  EXPECT_FALSE(f.gate.waiting().has_value());
}

TEST(InSyncGate, WrittenIndex_IsTheWriteHooksLast) {
  GateFixture f;
  f.written = 42;
  EXPECT_EQ(f.gate.WrittenIndex(), 42u);
}

}  // namespace
}  // namespace taskboard::ha
