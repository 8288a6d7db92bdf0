#include "scheduler/ha/leader_write_hook.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ha/follower_applier.h"
#include "scheduler/ha/replica_db.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/ha/test_leader.h"

namespace taskboard::ha {
namespace {

using ::taskboard::ha::testing::TestLeader;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;

TEST(LeaderWriteHookTest, EachCommit_NextPositionOfTheEpochInTheLog) {
  TestLeader leader(4);
  EXPECT_EQ(leader.Commit("a", "1"), (LogPosition{4, 1}));
  EXPECT_EQ(leader.Commit("b", "2"), (LogPosition{4, 2}));
  EXPECT_EQ(leader.log().last(), (LogPosition{4, 2}));
  EXPECT_EQ(leader.log().Read(1, 10, 1 << 20)->size(), 2u);
}

TEST(LeaderWriteHookTest, EmptyBatch_NoPositionAndNoEntry) {
  TestLeader leader(4);
  ASSERT_THAT(leader.store().Write(store::WriteBatch()), IsOk());
  EXPECT_EQ(leader.hook().last(), (LogPosition{}));
  EXPECT_TRUE(leader.log().Read(1, 10, 1 << 20)->empty());
}

TEST(LeaderWriteHookTest, Reopened_NextEpochContinuesAfterTheStoredPosition) {
  TestLeader leader(4);
  leader.CommitMany(0, 3);
  leader.Open(9);  // the same store, a later term
  EXPECT_EQ(leader.log().last(), (LogPosition{4, 3}));
  EXPECT_EQ(leader.Commit("x", "y"), (LogPosition{9, 4}));
  // A follower that holds (4, 3) continues with the new epoch's first entry.
  EXPECT_EQ(*leader.log().ResumeFrom({4, 3}), 4u);
}

TEST(LeaderWriteHookTest, Reopened_OlderEpochThanStored_WritesFail) {
  TestLeader leader(4);
  leader.CommitMany(0, 1);
  leader.Open(3);
  store::WriteBatch batch;
  batch.Put(store::Column::kTasks, "k", "v");
  EXPECT_EQ(leader.store().Write(batch).code(), absl::StatusCode::kFailedPrecondition);
}

// What wiring relies on: the leader's bytes, applied on a follower, leave a
// directory that the scheduler's own store opens with the same data.
TEST(LeaderWriteHookTest, FollowerApplied_OpensAsTheSchedulersStoreWithTheLeadersData) {
  TestLeader leader(4);
  leader.CommitMany(0, 20);
  store::WriteBatch deletion;
  deletion.Delete(store::Column::kTasks, "k5");
  ASSERT_THAT(leader.store().Write(deletion), IsOk());
  TempDir dir;
  const std::string path = (dir.path() / "follower").string();
  {
    std::unique_ptr<ReplicaDb> db = *ReplicaDb::Open(ReplicaDbOptions{path, true});
    EXPECT_EQ(db->ColumnFamilies(), leader.hook().ColumnFamilies());
    std::unique_ptr<FollowerApplier> applier = *FollowerApplier::Create(db.get());
    ASSERT_THAT(applier->Apply(*leader.log().Read(1, 100, 1 << 30)), IsOk());
  }

  store::RocksDbStoreOptions options;
  options.path = path;
  absl::StatusOr<std::unique_ptr<store::Store>> promoted = store::OpenRocksDbStore(options);
  ASSERT_THAT(promoted, IsOk());
  EXPECT_EQ(*(*promoted)->Get(store::Column::kTasks, "k7"), "v7");
  EXPECT_EQ(*(*promoted)->Get(store::Column::kEvents, "k19/event"), "v19");
  EXPECT_FALSE((*promoted)->Get(store::Column::kTasks, "k5")->has_value());
  EXPECT_EQ(*(*promoted)->Get(store::Column::kMeta, std::string(kPositionKey)),
            EncodeLogPosition({4, 21}));
}

}  // namespace
}  // namespace taskboard::ha
