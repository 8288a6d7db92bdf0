// Whether a reopened store may have lost acknowledged writes: only after a
// stop that was not clean, and then only with --durability none, or wal
// across a machine restart (another boot id). Crashes are simulated by
// removing the clean-stop file a clean close leaves.

#include "scheduler/store/stop_marker.h"

#include <filesystem>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::store {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;

class StopMarkerTest : public ::testing::Test {
 protected:
  // Opens the store, writes a key, and returns whether it reported lost
  // writes; the store is closed cleanly again before returning.
  bool OpenWriteClose(Durability durability, const std::string& boot_id) {
    absl::StatusOr<std::unique_ptr<Store>> store = OpenRocksDbStore(
        {.path = path(), .durability = durability, .boot_id = boot_id});
    EXPECT_THAT(store.status(), IsOk());
    if (!store.ok()) return false;
    WriteBatch batch;
    batch.Put(Column::kRuns, "run", "record");
    EXPECT_THAT((*store)->Write(batch), IsOk());
    return (*store)->MayHaveLostWrites();
  }
  // As a crash leaves it: no clean-stop file.
  void ForgetCleanStop() { std::filesystem::remove(dir_.path() / "db" / "taskboard-clean-stop"); }
  std::string path() const { return (dir_.path() / "db").string(); }

  TempDir dir_;
};

TEST_F(StopMarkerTest, NewDirectory_NothingLost) {
  EXPECT_FALSE(OpenWriteClose(Durability::kNone, "boot-a"));
}

TEST_F(StopMarkerTest, CleanStop_NothingLostInAnyMode) {
  OpenWriteClose(Durability::kNone, "boot-a");
  EXPECT_FALSE(OpenWriteClose(Durability::kWal, "boot-b"));
}

TEST_F(StopMarkerTest, Crash_WithSync_NothingLost) {
  OpenWriteClose(Durability::kSync, "boot-a");
  ForgetCleanStop();
  EXPECT_FALSE(OpenWriteClose(Durability::kSync, "boot-b"));
}

TEST_F(StopMarkerTest, Crash_WithWal_LostOnlyAcrossAMachineRestart) {
  OpenWriteClose(Durability::kWal, "boot-a");
  ForgetCleanStop();
  EXPECT_FALSE(OpenWriteClose(Durability::kWal, "boot-a")) << "a process crash keeps the WAL";
  ForgetCleanStop();
  EXPECT_TRUE(OpenWriteClose(Durability::kWal, "boot-b")) << "a power loss may not";
}

TEST_F(StopMarkerTest, Crash_WithNone_Lost) {
  OpenWriteClose(Durability::kNone, "boot-a");
  ForgetCleanStop();
  // What counts is how the previous process wrote, not how this one does.
  EXPECT_TRUE(OpenWriteClose(Durability::kSync, "boot-a"));
}

// A recovery that did not get to make up for lost writes (a second crash)
// leaves the store judged lossy again, whatever the mode; once recovery
// confirms, the next stop is judged on its own.
TEST_F(StopMarkerTest, CrashDuringRecovery_StillLost_UntilConfirmed) {
  OpenWriteClose(Durability::kNone, "boot-a");
  ForgetCleanStop();
  EXPECT_TRUE(OpenWriteClose(Durability::kSync, "boot-a"));
  ForgetCleanStop();  // crashed before confirming
  EXPECT_TRUE(OpenWriteClose(Durability::kSync, "boot-a"));
  ForgetCleanStop();
  {
    absl::StatusOr<std::unique_ptr<Store>> store =
        OpenRocksDbStore({.path = path(), .durability = Durability::kSync, .boot_id = "boot-a"});
    ASSERT_THAT(store.status(), IsOk());
    EXPECT_TRUE((*store)->MayHaveLostWrites());
    ASSERT_THAT((*store)->SyncAndConfirmRecovery(), IsOk());
  }
  ForgetCleanStop();  // a crash after recovery, with sync
  EXPECT_FALSE(OpenWriteClose(Durability::kSync, "boot-a"));
}

}  // namespace
}  // namespace taskboard::store
