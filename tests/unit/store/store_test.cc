// One behaviour suite for every Store implementation: the in-memory store and
// RocksDB (on a fresh temporary directory per test).

#include "scheduler/store/store.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/memory_store.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::store {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;
using KV = std::pair<std::string, std::string>;

class StoreFactory {
 public:
  virtual ~StoreFactory() = default;
  virtual std::unique_ptr<Store> Open() = 0;
  virtual bool durable() const = 0;
};

class MemoryFactory : public StoreFactory {
 public:
  std::unique_ptr<Store> Open() override { return std::make_unique<MemoryStore>(); }
  bool durable() const override { return false; }
};

class RocksDbFactory : public StoreFactory {
 public:
  explicit RocksDbFactory(Durability durability) : durability_(durability) {}
  std::unique_ptr<Store> Open() override {
    absl::StatusOr<std::unique_ptr<Store>> store =
        OpenRocksDbStore({.path = dir_.path() / "db", .durability = durability_});
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *std::move(store) : nullptr;
  }
  bool durable() const override { return true; }
  const std::filesystem::path& dir() const { return dir_.path(); }

 private:
  TempDir dir_;
  Durability durability_;
};

enum class Kind { kMemory, kRocksSync, kRocksWal, kRocksNone };

class StoreTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    switch (GetParam()) {
      case Kind::kMemory:
        factory_ = std::make_unique<MemoryFactory>();
        break;
      case Kind::kRocksSync:
        factory_ = std::make_unique<RocksDbFactory>(Durability::kSync);
        break;
      case Kind::kRocksWal:
        factory_ = std::make_unique<RocksDbFactory>(Durability::kWal);
        break;
      case Kind::kRocksNone:
        factory_ = std::make_unique<RocksDbFactory>(Durability::kNone);
        break;
    }
    store_ = factory_->Open();
    ASSERT_NE(store_, nullptr);
  }

  void Put(Column column, const std::string& key, const std::string& value) {
    WriteBatch batch;
    batch.Put(column, key, value);
    ASSERT_THAT(store_->Write(batch), IsOk());
  }

  std::vector<KV> ScanAll(Column column, absl::string_view start, absl::string_view end,
                          bool reverse = false, size_t limit = 1000) {
    std::vector<KV> out;
    auto visit = [&](absl::string_view key, absl::string_view value) {
      out.emplace_back(std::string(key), std::string(value));
      return out.size() < limit;
    };
    absl::Status status = reverse ? store_->ScanReverse(column, start, end, visit)
                                  : store_->Scan(column, start, end, visit);
    EXPECT_THAT(status, IsOk());
    return out;
  }

  std::unique_ptr<StoreFactory> factory_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreTest, Get_MissingKey_ReturnsNothing) {
  absl::StatusOr<std::optional<std::string>> value = store_->Get(Column::kRuns, "nope");
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, std::nullopt);
}

TEST_P(StoreTest, Write_PutThenGet_ReturnsValue) {
  Put(Column::kRuns, "r1", "record");
  absl::StatusOr<std::optional<std::string>> value = store_->Get(Column::kRuns, "r1");
  ASSERT_THAT(value, IsOk());
  EXPECT_THAT(*value, Optional(std::string("record")));
}

TEST_P(StoreTest, MultiGet_ValuesInKeyOrderWithMissingOnesEmpty) {
  Put(Column::kLedger, "req/2", "second");
  Put(Column::kLedger, "req/1", "first");
  Put(Column::kRuns, "req/3", "other column");
  const std::vector<std::string> keys = {"req/2", "req/3", "req/1", "req/2"};
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_->MultiGet(Column::kLedger, keys);
  ASSERT_THAT(values, IsOk());
  EXPECT_THAT(*values,
              ElementsAre(Optional(std::string("second")), std::nullopt,
                          Optional(std::string("first")), Optional(std::string("second"))));
  absl::StatusOr<std::vector<std::optional<std::string>>> none =
      store_->MultiGet(Column::kLedger, {});
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreTest, Write_Overwrite_KeepsLastValue) {
  Put(Column::kRuns, "r1", "a");
  Put(Column::kRuns, "r1", "b");
  EXPECT_THAT(*store_->Get(Column::kRuns, "r1"), Optional(std::string("b")));
}

TEST_P(StoreTest, Write_Delete_RemovesKey) {
  Put(Column::kRuns, "r1", "a");
  WriteBatch batch;
  batch.Delete(Column::kRuns, "r1");
  ASSERT_THAT(store_->Write(batch), IsOk());
  EXPECT_EQ(*store_->Get(Column::kRuns, "r1"), std::nullopt);
}

TEST_P(StoreTest, Write_BatchAcrossColumns_AppliesEveryOpInOrder) {
  WriteBatch batch;
  batch.Put(Column::kRuns, "r", "run");
  batch.Put(Column::kTasks, "t", "first");
  batch.Put(Column::kTasks, "t", "second");
  batch.Put(Column::kEvents, "e", "event");
  batch.Delete(Column::kEvents, "e");
  EXPECT_EQ(batch.ops().size(), 5u);
  ASSERT_THAT(store_->Write(batch), IsOk());
  EXPECT_THAT(*store_->Get(Column::kRuns, "r"), Optional(std::string("run")));
  EXPECT_THAT(*store_->Get(Column::kTasks, "t"), Optional(std::string("second")));
  EXPECT_EQ(*store_->Get(Column::kEvents, "e"), std::nullopt);
}

TEST_P(StoreTest, Columns_AreIsolated) {
  Put(Column::kRuns, "k", "runs");
  Put(Column::kMeta, "k", "meta");
  EXPECT_THAT(*store_->Get(Column::kRuns, "k"), Optional(std::string("runs")));
  EXPECT_THAT(*store_->Get(Column::kMeta, "k"), Optional(std::string("meta")));
  EXPECT_EQ(*store_->Get(Column::kCache, "k"), std::nullopt);
}

TEST_P(StoreTest, Scan_ReturnsRangeInByteOrder_EndExcluded) {
  for (const char* key : {"b", "a", "d", "c", "e"}) Put(Column::kTasks, key, key);
  EXPECT_THAT(ScanAll(Column::kTasks, "b", "e"),
              ElementsAre(KV{"b", "b"}, KV{"c", "c"}, KV{"d", "d"}));
  EXPECT_THAT(ScanAll(Column::kTasks, "", ""), ::testing::SizeIs(5));
}

TEST_P(StoreTest, Scan_VisitorReturnsFalse_Stops) {
  for (const char* key : {"a", "b", "c"}) Put(Column::kTasks, key, key);
  EXPECT_THAT(ScanAll(Column::kTasks, "", "", /*reverse=*/false, /*limit=*/2),
              ElementsAre(KV{"a", "a"}, KV{"b", "b"}));
}

// Recovery reads every task of every active run once, from files written
// before the restart: the same keys in the same order as Scan.
TEST_P(StoreTest, ScanOnce_AfterReopen_SameRangeAsScanAndStopsWhenAsked) {
  for (const char* key : {"r1/b", "r1/a", "r2/a", "r1/c", "r0/z"}) Put(Column::kTasks, key, key);
  if (factory_->durable()) {
    store_.reset();
    store_ = factory_->Open();
    ASSERT_NE(store_, nullptr);
  }
  std::vector<KV> once;
  ASSERT_THAT(store_->ScanPrefixOnce(Column::kTasks, "r1/",
                                     [&](absl::string_view key, absl::string_view value) {
                                       once.emplace_back(std::string(key), std::string(value));
                                       return true;
                                     }),
              IsOk());
  EXPECT_THAT(once, ElementsAre(KV{"r1/a", "r1/a"}, KV{"r1/b", "r1/b"}, KV{"r1/c", "r1/c"}));
  EXPECT_EQ(once, ScanAll(Column::kTasks, "r1/", PrefixEnd("r1/")));
  std::vector<std::string> first;
  ASSERT_THAT(store_->ScanOnce(Column::kTasks, "", "",
                               [&](absl::string_view key, absl::string_view) {
                                 first.emplace_back(key);
                                 return false;
                               }),
              IsOk());
  EXPECT_THAT(first, ElementsAre("r0/z"));
}

TEST_P(StoreTest, ScanReverse_NewestFirst_EndExcluded) {
  for (const char* key : {"a", "b", "c", "d"}) Put(Column::kEvents, key, key);
  EXPECT_THAT(ScanAll(Column::kEvents, "b", "d", /*reverse=*/true),
              ElementsAre(KV{"c", "c"}, KV{"b", "b"}));
  EXPECT_THAT(ScanAll(Column::kEvents, "", "", /*reverse=*/true, /*limit=*/1),
              ElementsAre(KV{"d", "d"}));
  // An `end` that is not a key: start just below it.
  EXPECT_THAT(ScanAll(Column::kEvents, "", "bb", /*reverse=*/true),
              ElementsAre(KV{"b", "b"}, KV{"a", "a"}));
}

TEST_P(StoreTest, ScanPrefix_OnlyMatchingKeys_IncludingHighBytes) {
  Put(Column::kLedger, "ab", "1");
  Put(Column::kLedger, "ab\xff", "2");
  Put(Column::kLedger, "ac", "3");
  Put(Column::kLedger, "a", "4");
  std::vector<std::string> keys;
  ASSERT_THAT(store_->ScanPrefix(Column::kLedger, "ab",
                                 [&](absl::string_view key, absl::string_view) {
                                   keys.emplace_back(key);
                                   return true;
                                 }),
              IsOk());
  EXPECT_THAT(keys, ElementsAre("ab", "ab\xff"));
}

TEST_P(StoreTest, BinaryKeysAndValues_RoundTrip) {
  const std::string key("k\0\x01\xff", 4);
  const std::string value("\0v\0", 3);
  Put(Column::kCache, key, value);
  EXPECT_THAT(*store_->Get(Column::kCache, key), Optional(value));
}

TEST_P(StoreTest, Reopen_DurableStoreKeepsEveryWrite) {
  if (!factory_->durable()) GTEST_SKIP() << "the in-memory store is not durable";
  for (int i = 0; i < 100; ++i) Put(Column::kEvents, absl::StrCat("e", 1000 + i), "x");
  store_.reset();  // clean close
  store_ = factory_->Open();
  ASSERT_NE(store_, nullptr);
  EXPECT_THAT(ScanAll(Column::kEvents, "", ""), ::testing::SizeIs(100));
}

TEST_P(StoreTest, ReadSnapshot_ShowsTheStoreAsItWas_LaterWritesDoNot) {
  Put(Column::kRuns, "r1", "old");
  Put(Column::kRuns, "r2", "kept");
  std::shared_ptr<Store> snapshot = store_->ReadSnapshot();
  ASSERT_NE(snapshot, nullptr);
  WriteBatch later;
  later.Put(Column::kRuns, "r1", "new");
  later.Delete(Column::kRuns, "r2");
  later.Put(Column::kRuns, "r3", "added");
  ASSERT_THAT(store_->Write(later), IsOk());

  EXPECT_THAT(*snapshot->Get(Column::kRuns, "r1"), Optional(std::string("old")));
  EXPECT_THAT(*snapshot->Get(Column::kRuns, "r3"), std::nullopt);
  EXPECT_THAT(
      *snapshot->MultiGet(Column::kRuns, {"r1", "r2", "r3"}),
      ElementsAre(Optional(std::string("old")), Optional(std::string("kept")), std::nullopt));
  std::vector<KV> forward;
  ASSERT_THAT(snapshot->Scan(Column::kRuns, "", "",
                             [&](absl::string_view key, absl::string_view value) {
                               forward.emplace_back(std::string(key), std::string(value));
                               return true;
                             }),
              IsOk());
  EXPECT_THAT(forward, ElementsAre(KV{"r1", "old"}, KV{"r2", "kept"}));
  std::vector<KV> once;
  ASSERT_THAT(snapshot->ScanOnce(Column::kRuns, "", "",
                                 [&](absl::string_view key, absl::string_view value) {
                                   once.emplace_back(std::string(key), std::string(value));
                                   return true;
                                 }),
              IsOk());
  EXPECT_EQ(once, forward);
  std::vector<KV> reverse;
  ASSERT_THAT(snapshot->ScanReverse(Column::kRuns, "", "",
                                    [&](absl::string_view key, absl::string_view value) {
                                      reverse.emplace_back(std::string(key), std::string(value));
                                      return true;
                                    }),
              IsOk());
  EXPECT_THAT(reverse, ElementsAre(KV{"r2", "kept"}, KV{"r1", "old"}));
  // The store itself moved on.
  EXPECT_THAT(ScanAll(Column::kRuns, "", ""), ElementsAre(KV{"r1", "new"}, KV{"r3", "added"}));
}

TEST_P(StoreTest, ReadSnapshot_HeldPastMoreWrites_ThenReleased_StoreClosesCleanly) {
  if (!factory_->durable()) GTEST_SKIP() << "the in-memory store copies; nothing to release";
  std::shared_ptr<Store> snapshot = store_->ReadSnapshot();
  for (int i = 0; i < 50; ++i) Put(Column::kEvents, absl::StrCat("e", 1000 + i), "x");
  EXPECT_THAT(*snapshot->Get(Column::kEvents, "e1000"), std::nullopt);
  // A snapshot is read-only: writes go through the store.
  WriteBatch write;
  write.Put(Column::kEvents, "e1", "x");
  EXPECT_THAT(snapshot->Write(write), StatusIs(absl::StatusCode::kFailedPrecondition,
                                               HasSubstr("write through the store")));
  snapshot.reset();
  store_.reset();  // closes: RocksDB refuses to while a snapshot is open
  store_ = factory_->Open();
  ASSERT_NE(store_, nullptr);
  EXPECT_FALSE(store_->MayHaveLostWrites());
  EXPECT_THAT(ScanAll(Column::kEvents, "", ""), ::testing::SizeIs(50));
}

INSTANTIATE_TEST_SUITE_P(AllStores, StoreTest,
                         ::testing::Values(Kind::kMemory, Kind::kRocksSync, Kind::kRocksWal,
                                           Kind::kRocksNone),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           switch (info.param) {
                             case Kind::kMemory:
                               return "Memory";
                             case Kind::kRocksSync:
                               return "RocksDbSync";
                             case Kind::kRocksWal:
                               return "RocksDbWal";
                             case Kind::kRocksNone:
                               return "RocksDbNone";
                           }
                           return "Unknown";
                         });

TEST(RocksDbStore, SecondOpenOfSameDirectory_FailsWithHint) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<Store>> first = OpenRocksDbStore({.path = dir.path() / "db"});
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(OpenRocksDbStore({.path = dir.path() / "db"}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("another scheduler using this data directory")));
}

TEST(RocksDbStore, UnwritablePath_FailsWithPath) {
  EXPECT_THAT(OpenRocksDbStore({.path = "/proc/taskboard-cannot-create"}),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("cannot open the store at /proc/taskboard-cannot-create")));
}

TEST(ParseDurability, KnownNames_AndErrorNamesChoices) {
  EXPECT_EQ(*ParseDurability("sync"), Durability::kSync);
  EXPECT_EQ(*ParseDurability("wal"), Durability::kWal);
  EXPECT_EQ(*ParseDurability("none"), Durability::kNone);
  EXPECT_THAT(ParseDurability("fsync"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("use sync, wal or none")));
}

TEST(PrefixEnd, IncrementsLastByteAndDropsTrailingFf) {
  EXPECT_EQ(PrefixEnd("ab"), "ac");
  EXPECT_EQ(PrefixEnd("a\xff"), "b");
  EXPECT_EQ(PrefixEnd("\xff\xff"), "");
}

}  // namespace
}  // namespace taskboard::store
