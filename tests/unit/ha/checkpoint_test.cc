#include "scheduler/ha/checkpoint.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ha/checkpoint_receiver.h"
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

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class CheckpointTest : public ::testing::Test {
 protected:
  // Sends `info`'s files to `receiver` in chunks of `chunk` bytes, as the
  // leader's stream does.
  absl::Status Transfer(const CheckpointInfo& info, CheckpointReceiver& receiver,
                        size_t chunk = 1000) {
    if (absl::Status begun = receiver.Begin(info.position, info.files); !begun.ok()) return begun;
    for (const CheckpointInfo::File& file : info.files) {
      const std::string data = ReadAll(info.dir + "/" + file.name);
      for (size_t offset = 0; offset < data.size(); offset += chunk) {
        absl::Status written =
            receiver.Write(file.name, offset, absl::string_view(data).substr(offset, chunk));
        if (!written.ok()) return written;
      }
      Sha256Stream digest;
      digest.Update(data);
      absl::Status ended = receiver.End(file.name, data.size(), digest.FinishHex());
      if (!ended.ok()) return ended;
    }
    return absl::OkStatus();
  }

  TestLeader leader_{3};
  TempDir dir_;
  const std::string checkpoint_ = (dir_.path() / "checkpoint").string();
  const std::string follower_ = (dir_.path() / "follower").string();
};

TEST_F(CheckpointTest, Create_HoldsTheLeadersPositionAndFiles) {
  leader_.CommitMany(0, 30);
  absl::StatusOr<CheckpointInfo> info = leader_.hook().CreateCheckpoint(checkpoint_);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->position, (LogPosition{3, 30}));
  EXPECT_FALSE(info->files.empty());
  for (const CheckpointInfo::File& file : info->files) {
    EXPECT_EQ(std::filesystem::file_size(checkpoint_ + "/" + file.name), file.size) << file.name;
    EXPECT_NE(file.name.rfind("LOG", 0), 0u) << "the info log is not part of the database";
  }
}

TEST_F(CheckpointTest, Received_InstallsOverAnOldDatabaseWithTheCheckpointsData) {
  leader_.CommitMany(0, 30);
  {
    // A stale follower database, about to be replaced.
    std::unique_ptr<ReplicaDb> stale = *ReplicaDb::Open(ReplicaDbOptions{follower_, true});
  }
  CheckpointInfo info = *leader_.hook().CreateCheckpoint(checkpoint_);
  CheckpointReceiver receiver(follower_);

  ASSERT_THAT(Transfer(info, receiver), IsOk());
  absl::StatusOr<LogPosition> installed = receiver.Install();

  ASSERT_THAT(installed, IsOk());
  EXPECT_EQ(*installed, (LogPosition{3, 30}));
  EXPECT_FALSE(std::filesystem::exists(follower_ + ".old"));
  EXPECT_FALSE(std::filesystem::exists(follower_ + ".incoming"));
  std::unique_ptr<ReplicaDb> db = *ReplicaDb::Open(ReplicaDbOptions{follower_, true});
  EXPECT_EQ(*db->Position(), (LogPosition{3, 30}));
  EXPECT_EQ(*db->Get(static_cast<int>(store::Column::kTasks), "k29"), "v29");
}

TEST_F(CheckpointTest, CorruptChunk_DataLossAndNothingInstalled) {
  leader_.CommitMany(0, 5);
  CheckpointInfo info = *leader_.hook().CreateCheckpoint(checkpoint_);
  CheckpointReceiver receiver(follower_);
  ASSERT_THAT(receiver.Begin(info.position, info.files), IsOk());
  const CheckpointInfo::File& file = info.files.front();
  std::string data = ReadAll(checkpoint_ + "/" + file.name);
  Sha256Stream digest;
  digest.Update(data);
  data[data.size() / 2] ^= 1;  // a bit flipped on the way
  ASSERT_THAT(receiver.Write(file.name, 0, data), IsOk());

  EXPECT_THAT(receiver.End(file.name, data.size(), digest.FinishHex()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("SHA-256")));
  EXPECT_THAT(receiver.Install(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_FALSE(std::filesystem::exists(follower_));
}

TEST_F(CheckpointTest, ChunkOutOfOrderOrUnknownFile_InvalidArgument) {
  leader_.CommitMany(0, 5);
  CheckpointInfo info = *leader_.hook().CreateCheckpoint(checkpoint_);
  CheckpointReceiver receiver(follower_);
  ASSERT_THAT(receiver.Begin(info.position, info.files), IsOk());
  EXPECT_THAT(receiver.Write("../escape", 0, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not in the manifest")));
  EXPECT_THAT(receiver.Write(info.files.front().name, 5, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 0")));
  EXPECT_THAT(receiver.Begin(info.position, {{"../x", 1}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a plain name")));
}

TEST_F(CheckpointTest, InstallInterruptedAfterTheOldWasMovedAside_RecoveryPutsItBack) {
  { std::unique_ptr<ReplicaDb> db = *ReplicaDb::Open(ReplicaDbOptions{follower_, true}); }
  std::filesystem::rename(follower_, follower_ + ".old");  // the crash came here

  ASSERT_THAT(RecoverCheckpointInstall(follower_), IsOk());

  EXPECT_TRUE(std::filesystem::exists(follower_));
  EXPECT_FALSE(std::filesystem::exists(follower_ + ".old"));
  EXPECT_THAT(ReplicaDb::Open(ReplicaDbOptions{follower_, true}), IsOk());
}

}  // namespace
}  // namespace taskboard::ha
