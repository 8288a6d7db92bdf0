#include "scheduler/ha/follower_applier.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ha/replica_db.h"
#include "scheduler/store/store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/ha/test_leader.h"

namespace taskboard::ha {
namespace {

using ::taskboard::ha::testing::TestLeader;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::HasSubstr;

constexpr int kTasks = static_cast<int>(store::Column::kTasks);

class FollowerApplierTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenFollower(); }
  void OpenFollower() {
    applier_.reset();
    db_.reset();
    absl::StatusOr<std::unique_ptr<ReplicaDb>> db =
        ReplicaDb::Open(ReplicaDbOptions{(dir_.path() / "follower").string(), true});
    ASSERT_THAT(db, IsOk());
    db_ = *std::move(db);
    absl::StatusOr<std::unique_ptr<FollowerApplier>> applier = FollowerApplier::Create(db_.get());
    ASSERT_THAT(applier, IsOk());
    applier_ = *std::move(applier);
  }
  std::vector<LogEntry> Entries(uint64_t from, uint64_t to) {
    return *leader_.log().Read(from, to - from + 1, 1 << 30);
  }

  TestLeader leader_{7};
  TempDir dir_;
  std::unique_ptr<ReplicaDb> db_;
  std::unique_ptr<FollowerApplier> applier_;
};

TEST_F(FollowerApplierTest, Apply_InOrder_DataAndPositionDurableAcrossReopen) {
  leader_.CommitMany(0, 5);

  absl::StatusOr<LogPosition> applied = applier_->Apply(Entries(1, 5));

  ASSERT_THAT(applied, IsOk());
  EXPECT_EQ(*applied, (LogPosition{7, 5}));
  OpenFollower();
  EXPECT_EQ(applier_->position(), (LogPosition{7, 5}));
  EXPECT_EQ(*db_->Get(kTasks, "k3"), "v3");
}

TEST_F(FollowerApplierTest, Apply_Gap_OutOfRangeAndNothingAfterIt) {
  leader_.CommitMany(0, 4);
  ASSERT_THAT(applier_->Apply(Entries(1, 2)), IsOk());

  EXPECT_THAT(applier_->Apply(Entries(4, 4)),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("does not follow")));
  EXPECT_EQ(applier_->position().index, 2u);
  EXPECT_FALSE(db_->Get(kTasks, "k3")->has_value());
}

TEST_F(FollowerApplierTest, Apply_RepeatOfAnAppliedEntry_OutOfRange) {
  leader_.CommitMany(0, 2);
  ASSERT_THAT(applier_->Apply(Entries(1, 2)), IsOk());
  EXPECT_THAT(applier_->Apply(Entries(2, 2)), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_F(FollowerApplierTest, Apply_OlderEpochThanSeen_FencedAndNotVisible) {
  leader_.CommitMany(0, 2);
  applier_->ObserveEpoch(9);  // etcd says epoch 9 leads now

  EXPECT_THAT(applier_->Apply(Entries(1, 2)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("deposed leader")));
  EXPECT_EQ(applier_->position().index, 0u);
  EXPECT_FALSE(db_->Get(kTasks, "k0")->has_value());
}

TEST_F(FollowerApplierTest, Apply_RefusedMidGroup_EarlierEntriesStayDurable) {
  leader_.CommitMany(0, 3);
  std::vector<LogEntry> entries = Entries(1, 3);
  entries[2].position.index = 9;  // a gap after two good entries

  EXPECT_THAT(applier_->Apply(entries), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_EQ(applier_->position().index, 2u);
  OpenFollower();
  EXPECT_EQ(applier_->position().index, 2u);
}

TEST_F(FollowerApplierTest, Apply_NotABatch_InvalidArgument) {
  std::vector<LogEntry> garbage = {
      LogEntry{{7, 1}, std::make_shared<const std::string>("nope"), 0}};
  EXPECT_THAT(applier_->Apply(garbage), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(applier_->position().index, 0u);
}

}  // namespace
}  // namespace taskboard::ha
