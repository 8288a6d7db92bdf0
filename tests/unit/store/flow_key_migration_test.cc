// The one-way move of saved flows to tenant-prefixed keys
// (scheduler/store/flow_key_migration.h), on the in-memory store and on
// RocksDB reopened in between.

#include "scheduler/store/flow_key_migration.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::store {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::Optional;
using KV = std::pair<std::string, std::string>;

void Put(Store& store, const std::string& key, const std::string& value) {
  WriteBatch batch;
  batch.Put(Column::kFlows, key, value);
  ASSERT_THAT(store.Write(batch), IsOk());
}

// What MigrateFlowKeys moved; -1 (and a failure) on an error.
int64_t Moved(Store& store) {
  absl::StatusOr<int64_t> moved = MigrateFlowKeys(store);
  EXPECT_THAT(moved, IsOk());
  return moved.ok() ? *moved : -1;
}

std::vector<KV> Flows(Store& store) {
  std::vector<KV> rows;
  EXPECT_THAT(store.Scan(Column::kFlows, "", "",
                         [&](absl::string_view key, absl::string_view value) {
                           rows.emplace_back(std::string(key), std::string(value));
                           return true;
                         }),
              IsOk());
  return rows;
}

TEST(FlowKeyMigration, OldKeys_MovedUnderTheirTenantWithTheirValues) {
  MemoryStore store;
  Put(store, keys::LegacyFlow("acme/digest", 1), "acme v1");
  Put(store, keys::LegacyFlow("acme/digest", 2), "acme v2");
  Put(store, keys::LegacyFlow("digest", 1), "no tenant v1");
  Put(store, keys::LegacyFlow("globex/report", 3), "globex v3");

  EXPECT_EQ(Moved(store), 4);

  std::vector<KV> rows = Flows(store);
  EXPECT_THAT(rows,
              ::testing::UnorderedElementsAre(KV{keys::Flow("acme", "digest", 1), "acme v1"},
                                              KV{keys::Flow("acme", "digest", 2), "acme v2"},
                                              KV{keys::Flow("", "digest", 1), "no tenant v1"},
                                              KV{keys::Flow("globex", "report", 3), "globex v3"}));
  EXPECT_THAT(*store.Get(Column::kMeta, keys::FlowKeysByTenant()), Optional(std::string()));
}

TEST(FlowKeyMigration, MarkerWritten_LaterStartsMoveNothing) {
  MemoryStore store;
  Put(store, keys::LegacyFlow("acme/digest", 1), "v1");
  ASSERT_EQ(Moved(store), 1);
  // An old-layout key that appears after the marker is not looked for: a
  // start with the marker reads one meta key and no flow.
  Put(store, keys::LegacyFlow("acme/late", 1), "late");
  EXPECT_EQ(Moved(store), 0);
  EXPECT_THAT(*store.Get(Column::kFlows, keys::LegacyFlow("acme/late", 1)),
              Optional(std::string("late")));
}

TEST(FlowKeyMigration, HalfMovedStore_FinishesTheMove) {
  // A crash between two batches leaves both layouts and no marker.
  MemoryStore store;
  Put(store, keys::Flow("acme", "digest", 1), "moved");
  Put(store, keys::LegacyFlow("acme/digest", 2), "not yet");
  EXPECT_EQ(Moved(store), 1);
  EXPECT_THAT(Flows(store), ElementsAre(KV{keys::Flow("acme", "digest", 1), "moved"},
                                        KV{keys::Flow("acme", "digest", 2), "not yet"}));
}

TEST(FlowKeyMigration, ManyFlows_MovedInSeveralBatches) {
  MemoryStore store;
  WriteBatch batch;
  for (int i = 0; i < 5'000; ++i) {
    batch.Put(Column::kFlows, keys::LegacyFlow(absl::StrCat("acme/f", i), 1), "v");
  }
  ASSERT_THAT(store.Write(batch), IsOk());
  EXPECT_EQ(Moved(store), 5'000);
  std::vector<KV> rows = Flows(store);
  ASSERT_EQ(rows.size(), 5'000u);
  for (const KV& row : rows) EXPECT_TRUE(keys::ParseFlow(row.first).has_value());
}

TEST(FlowKeyMigration, RocksDb_MovedKeysAndMarkerSurviveAReopen) {
  TempDir dir;
  const RocksDbStoreOptions options{.path = dir.path() / "db", .durability = Durability::kSync};
  {
    absl::StatusOr<std::unique_ptr<Store>> store = OpenRocksDbStore(options);
    ASSERT_THAT(store, IsOk());
    Put(**store, keys::LegacyFlow("acme/digest", 7), "v7");
    EXPECT_EQ(Moved(**store), 1);
  }
  absl::StatusOr<std::unique_ptr<Store>> reopened = OpenRocksDbStore(options);
  ASSERT_THAT(reopened, IsOk());
  EXPECT_EQ(Moved(**reopened), 0);
  EXPECT_THAT(Flows(**reopened), ElementsAre(KV{keys::Flow("acme", "digest", 7), "v7"}));
}

}  // namespace
}  // namespace taskboard::store
