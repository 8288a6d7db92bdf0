#ifndef TASKBOARD_TESTS_UNIT_HA_TEST_LEADER_H_
#define TASKBOARD_TESTS_UNIT_HA_TEST_LEADER_H_

// A leader's store for replication tests: the scheduler's RocksDB store in a
// temp dir with the LeaderWriteHook, so that every Write the test makes is
// numbered in `epoch` and lands in `log`, exactly as a leader's commits will.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/ha/leader_write_hook.h"
#include "scheduler/ha/replica_log.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::ha::testing {

class TestLeader {
 public:
  explicit TestLeader(uint64_t epoch, ReplicaLogOptions log_options = {}, std::string path = "")
      : log_(log_options),
        path_(path.empty() ? (dir_.path() / "leader").string() : std::move(path)) {
    Open(epoch);
  }

  // Closes the store and opens it again as the leader of `epoch`.
  void Open(uint64_t epoch) {
    store_.reset();
    hook_ = std::make_shared<LeaderWriteHook>(epoch, &log_);
    store::RocksDbStoreOptions options;
    options.path = path_;
    options.durability = store::Durability::kWal;
    options.write_hook = hook_;
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::OpenRocksDbStore(options);
    EXPECT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // One committed batch: tasks `key` = `value` (and a second key, so batches
  // have several ops); its log position.
  LogPosition Commit(const std::string& key, const std::string& value) {
    store::WriteBatch batch;
    batch.Put(store::Column::kTasks, key, value);
    batch.Put(store::Column::kEvents, absl::StrCat(key, "/event"), value);
    EXPECT_TRUE(store_->Write(batch).ok());
    return hook_->last();
  }
  // `count` batches, keys k<first>... ; the last position.
  LogPosition CommitMany(int first, int count) {
    LogPosition last;
    for (int i = first; i < first + count; ++i) {
      last = Commit(absl::StrCat("k", i), absl::StrCat("v", i));
    }
    return last;
  }

  ReplicaLog& log() { return log_; }
  LeaderWriteHook& hook() { return *hook_; }
  store::Store& store() { return *store_; }
  const std::string& path() const { return path_; }

 private:
  taskboard::testing::TempDir dir_;
  ReplicaLog log_;
  std::string path_;
  std::shared_ptr<LeaderWriteHook> hook_;
  std::unique_ptr<store::Store> store_;
};

}  // namespace taskboard::ha::testing

#endif  // TASKBOARD_TESTS_UNIT_HA_TEST_LEADER_H_
