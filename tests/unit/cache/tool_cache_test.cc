#include "scheduler/cache/tool_cache.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::cache {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::testing::IsEmpty;
using ::testing::SizeIs;

CacheKey KeyOf(absl::string_view path, absl::string_view scope_id = "run-1",
               absl::string_view tenant = "acme") {
  absl::StatusOr<CacheKey> key = MakeCacheKey(tenant, v1::CACHE_SCOPE_RUN, scope_id, "read_file",
                                              absl::StrCat(R"({"path":")", path, R"("})"), {});
  EXPECT_THAT(key, IsOk());
  return key.ok() ? *key : CacheKey{};
}

ToolCache::Entry Result(absl::string_view result_json, int64_t ttl_ms = 1000) {
  ToolCache::Entry entry;
  entry.tool_name = "read_file";
  entry.result_json = std::string(result_json);
  entry.source_task.set_run_id("run-1");
  entry.source_task.set_task_id("t1");
  entry.ttl_ms = ttl_ms;
  return entry;
}

// Every test commits each batch, so the store always mirrors memory and a
// fresh Load can be compared with the live cache.
class ToolCacheTest : public ::testing::Test {
 protected:
  void Put(const CacheKey& key, ToolCache::Entry entry, int64_t max_entries, int64_t now_ms) {
    store::WriteBatch batch;
    cache_.Put(key, std::move(entry), max_entries, now_ms, &batch);
    Commit(batch);
  }
  void Sweep(int64_t now_ms) {
    store::WriteBatch batch;
    cache_.Sweep(now_ms, &batch);
    Commit(batch);
  }
  void Commit(const store::WriteBatch& batch) { ASSERT_THAT(store_.Write(batch), IsOk()); }
  std::vector<std::string> StoredKeys() {
    std::vector<std::string> keys;
    EXPECT_THAT(store_.Scan(store::Column::kCache, "", "",
                            [&](absl::string_view key, absl::string_view) {
                              keys.emplace_back(key);
                              return true;
                            }),
                IsOk());
    return keys;
  }

  store::MemoryStore store_;
  ToolCache cache_;
};

TEST_F(ToolCacheTest, Put_ThenLookup_HitWithAgeAndSource) {
  Put(KeyOf("a"), Result(R"({"text":"A"})"), 10, 1000);
  std::optional<ToolCache::Hit> hit = cache_.Lookup(KeyOf("a").key, 1250);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->result_json, R"({"text":"A"})");
  EXPECT_EQ(hit->age_ms, 250);
  EXPECT_EQ(hit->source_task.run_id(), "run-1");
  EXPECT_EQ(hit->source_task.task_id(), "t1");
  EXPECT_FALSE(cache_.Lookup(KeyOf("b").key, 1250).has_value());
  EXPECT_EQ(cache_.entries(), 1);
}

TEST_F(ToolCacheTest, Lookup_AtOrAfterExpiry_Miss) {
  Put(KeyOf("a"), Result("1", /*ttl_ms=*/500), 10, 1000);
  EXPECT_TRUE(cache_.Lookup(KeyOf("a").key, 1499).has_value());
  EXPECT_FALSE(cache_.Lookup(KeyOf("a").key, 1500).has_value());
  EXPECT_FALSE(cache_.Lookup(KeyOf("a").key, 99999).has_value());
}

TEST_F(ToolCacheTest, Put_TtlZero_NeverStored) {
  store::WriteBatch batch;
  cache_.Put(KeyOf("a"), Result("1", /*ttl_ms=*/0), 10, 1000, &batch);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(cache_.entries(), 0);
  EXPECT_FALSE(cache_.Lookup(KeyOf("a").key, 1000).has_value());
}

TEST_F(ToolCacheTest, Put_WritesRecordUnderCacheColumn) {
  store::WriteBatch batch;
  cache_.Put(KeyOf("a"), Result(R"("A")", 500), 10, 1000, &batch);
  ASSERT_THAT(batch.ops(), SizeIs(1));
  const store::WriteBatch::Op& op = batch.ops()[0];
  EXPECT_EQ(op.column, store::Column::kCache);
  EXPECT_EQ(op.key, store::keys::Cache(KeyOf("a").key));
  store::CacheEntryRecord record;
  ASSERT_TRUE(op.value.has_value() && record.ParseFromString(*op.value));
  EXPECT_EQ(record.result_json(), R"("A")");
  EXPECT_EQ(record.tool_name(), "read_file");
  EXPECT_EQ(record.created_unix_ms(), 1000);
  EXPECT_EQ(record.expires_unix_ms(), 1500);
  EXPECT_EQ(record.source_task().task_id(), "t1");
  EXPECT_EQ(record.scope_prefix(), KeyOf("a").scope_prefix);
}

TEST_F(ToolCacheTest, Put_SameKey_ReplacesEntry) {
  Put(KeyOf("a"), Result("1"), 10, 1000);
  Put(KeyOf("a"), Result("2"), 10, 1100);
  EXPECT_EQ(cache_.entries(), 1);
  EXPECT_EQ(cache_.Lookup(KeyOf("a").key, 1200)->result_json, "2");
  EXPECT_EQ(cache_.Lookup(KeyOf("a").key, 1200)->age_ms, 100);
  EXPECT_THAT(StoredKeys(), SizeIs(1));
  EXPECT_EQ(cache_.evictions(), 0);
}

TEST_F(ToolCacheTest, Put_BeyondMaxEntries_EvictsLeastRecentlyUsedOfThatScopeOnly) {
  Put(KeyOf("other", "run-2"), Result("x"), 2, 900);
  Put(KeyOf("a"), Result("1"), 2, 1000);
  Put(KeyOf("b"), Result("2"), 2, 1001);
  ASSERT_TRUE(cache_.Lookup(KeyOf("a").key, 1002).has_value());  // b is now least recent
  Put(KeyOf("c"), Result("3"), 2, 1003);

  EXPECT_TRUE(cache_.Lookup(KeyOf("a").key, 1004).has_value());
  EXPECT_FALSE(cache_.Lookup(KeyOf("b").key, 1004).has_value());
  EXPECT_TRUE(cache_.Lookup(KeyOf("c").key, 1004).has_value());
  // run-2's older entry is another scope instance: untouched.
  EXPECT_TRUE(cache_.Lookup(KeyOf("other", "run-2").key, 1004).has_value());
  EXPECT_EQ(cache_.evictions(), 1);
  EXPECT_EQ(cache_.entries(), 3);
  EXPECT_THAT(StoredKeys(), SizeIs(3));
}

TEST_F(ToolCacheTest, Put_EvictionDeletesAreInTheBatch) {
  Put(KeyOf("a"), Result("1"), 1, 1000);
  store::WriteBatch batch;
  cache_.Put(KeyOf("b"), Result("2"), 1, 1001, &batch);
  ASSERT_THAT(batch.ops(), SizeIs(2));
  EXPECT_EQ(batch.ops()[1].key, store::keys::Cache(KeyOf("a").key));
  EXPECT_FALSE(batch.ops()[1].value.has_value());
}

TEST_F(ToolCacheTest, Sweep_RemovesExpiredEntriesOnly) {
  Put(KeyOf("short"), Result("1", 100), 10, 1000);
  Put(KeyOf("long"), Result("2", 10000), 10, 1000);
  Sweep(1099);
  EXPECT_EQ(cache_.entries(), 2);
  Sweep(1100);
  EXPECT_EQ(cache_.entries(), 1);
  EXPECT_EQ(cache_.expirations(), 1);
  EXPECT_EQ(StoredKeys(), std::vector<std::string>{store::keys::Cache(KeyOf("long").key)});
  EXPECT_TRUE(cache_.Lookup(KeyOf("long").key, 1100).has_value());
  EXPECT_EQ(cache_.evictions(), 0);
}

TEST_F(ToolCacheTest, Sweep_ExpiredButUnsweptEntry_StillCountsUntilSwept) {
  Put(KeyOf("a"), Result("1", 100), 10, 1000);
  EXPECT_FALSE(cache_.Lookup(KeyOf("a").key, 2000).has_value());
  EXPECT_EQ(cache_.entries(), 1);
  Sweep(2000);
  EXPECT_EQ(cache_.entries(), 0);
  EXPECT_THAT(StoredKeys(), IsEmpty());
}

TEST_F(ToolCacheTest, Tenants_NeverShareEntries) {
  Put(KeyOf("a", "run-1", "acme"), Result("acme's"), 10, 1000);
  EXPECT_FALSE(cache_.Lookup(KeyOf("a", "run-1", "globex").key, 1001).has_value());
  Put(KeyOf("a", "run-1", "globex"), Result("globex's"), 10, 1002);
  EXPECT_EQ(cache_.Lookup(KeyOf("a", "run-1", "acme").key, 1003)->result_json, "acme's");
  EXPECT_EQ(cache_.Lookup(KeyOf("a", "run-1", "globex").key, 1003)->result_json, "globex's");
}

TEST_F(ToolCacheTest, Load_FromStore_MatchesWhatWasWritten) {
  Put(KeyOf("a"), Result("1", 1000), 10, 1000);
  Put(KeyOf("b"), Result("2", 5000), 10, 1000);
  ToolCache reloaded;
  store::WriteBatch batch;
  ASSERT_THAT(reloaded.Load(store_, 1500, &batch), IsOk());
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(reloaded.entries(), 2);
  EXPECT_EQ(reloaded.Lookup(KeyOf("a").key, 1500)->result_json, "1");
  EXPECT_EQ(reloaded.Lookup(KeyOf("a").key, 1500)->age_ms, 500);
  EXPECT_FALSE(reloaded.Lookup(KeyOf("a").key, 2000).has_value());
}

TEST_F(ToolCacheTest, Load_ExpiredAndCorruptRows_DeletedNotLoaded) {
  Put(KeyOf("old"), Result("1", 100), 10, 1000);
  Put(KeyOf("live"), Result("2", 5000), 10, 1000);
  store::WriteBatch garbage;
  // A truncated record, an empty record (no scope prefix) and a key of the wrong shape.
  garbage.Put(store::Column::kCache, store::keys::Cache("truncated"),
              std::string("\x0a\x05"
                          "ab"));
  garbage.Put(store::Column::kCache, store::keys::Cache("empty"), "");
  garbage.Put(store::Column::kCache, "x", "y");
  Commit(garbage);

  ToolCache reloaded;
  store::WriteBatch batch;
  ASSERT_THAT(reloaded.Load(store_, 2000, &batch), IsOk());
  EXPECT_EQ(reloaded.entries(), 1);
  EXPECT_EQ(reloaded.expirations(), 1);
  EXPECT_THAT(batch.ops(), SizeIs(4));
  Commit(batch);
  EXPECT_EQ(StoredKeys(), std::vector<std::string>{store::keys::Cache(KeyOf("live").key)});
}

TEST_F(ToolCacheTest, Load_RecencyRestartsFromCreationOrder) {
  Put(KeyOf("newer"), Result("1"), 10, 1001);
  Put(KeyOf("older"), Result("2"), 10, 1000);
  ASSERT_TRUE(cache_.Lookup(KeyOf("older").key, 1002).has_value());  // forgotten on restart

  ToolCache reloaded;
  store::WriteBatch load_batch;
  ASSERT_THAT(reloaded.Load(store_, 1003, &load_batch), IsOk());
  store::WriteBatch batch;
  reloaded.Put(KeyOf("third"), Result("3"), 2, 1004, &batch);
  EXPECT_FALSE(reloaded.Lookup(KeyOf("older").key, 1005).has_value());
  EXPECT_TRUE(reloaded.Lookup(KeyOf("newer").key, 1005).has_value());
  EXPECT_EQ(reloaded.evictions(), 1);
}

TEST(ToolCachePersistence, RocksDb_ReopenAndLoad_ServesUntilExpiryAndDeletesExpired) {
  TempDir dir;
  const store::RocksDbStoreOptions options{.path = (dir.path() / "db").string(),
                                           .durability = store::Durability::kSync};
  {
    absl::StatusOr<std::unique_ptr<store::Store>> db = store::OpenRocksDbStore(options);
    ASSERT_THAT(db, IsOk());
    ToolCache cache;
    store::WriteBatch batch;
    cache.Put(KeyOf("short"), Result(R"({"n":1})", 1000), 10, 10000, &batch);
    cache.Put(KeyOf("long"), Result(R"({"n":2})", 60000), 10, 10000, &batch);
    ASSERT_THAT((*db)->Write(batch), IsOk());
  }
  absl::StatusOr<std::unique_ptr<store::Store>> db = store::OpenRocksDbStore(options);
  ASSERT_THAT(db, IsOk());
  ToolCache cache;
  store::WriteBatch batch;
  ASSERT_THAT(cache.Load(**db, 20000, &batch), IsOk());
  ASSERT_THAT(batch.ops(), SizeIs(1));
  EXPECT_EQ(batch.ops()[0].key, store::keys::Cache(KeyOf("short").key));
  EXPECT_FALSE(batch.ops()[0].value.has_value());
  ASSERT_THAT((*db)->Write(batch), IsOk());

  std::optional<ToolCache::Hit> hit = cache.Lookup(KeyOf("long").key, 20000);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->result_json, R"({"n":2})");
  EXPECT_EQ(hit->age_ms, 10000);
  EXPECT_EQ(hit->source_task.task_id(), "t1");
  EXPECT_FALSE(cache.Lookup(KeyOf("short").key, 20000).has_value());
  EXPECT_FALSE(cache.Lookup(KeyOf("long").key, 70000).has_value());

  int rows = 0;
  ASSERT_THAT((*db)->Scan(store::Column::kCache, "", "",
                          [&](absl::string_view, absl::string_view) { return ++rows, true; }),
              IsOk());
  EXPECT_EQ(rows, 1);
}

}  // namespace
}  // namespace taskboard::cache

namespace taskboard::cache {
namespace {

// A ttl past --cache-max-ttl is cut to it, whatever the tool declared.
TEST_F(ToolCacheTest, Put_TtlPastTheMaximum_CappedAtIt) {
  cache_.set_limits({.max_ttl_ms = 500, .max_entries_per_tenant = 100});
  Put(KeyOf("a"), Result("1", /*ttl_ms=*/1'000'000), 10, 1000);
  EXPECT_TRUE(cache_.Lookup(KeyOf("a").key, 1499).has_value());
  EXPECT_FALSE(cache_.Lookup(KeyOf("a").key, 1500).has_value());
}

// Every run has its own run (and request) scope, so per-scope limits do not
// bound a tenant: the tenant limit does, evicting its oldest entries across
// scopes and never another tenant's.
TEST_F(ToolCacheTest, Put_PastTheTenantLimit_OldestOfThatTenantEvicted) {
  cache_.set_limits({.max_ttl_ms = 1'000'000, .max_entries_per_tenant = 3});
  Put(KeyOf("other", "run-0", "globex"), Result("g"), 10, 900);
  for (int run = 1; run <= 5; ++run) {
    Put(KeyOf("a", absl::StrCat("run-", run)), Result("1"), 10, 1000 + run);
  }
  EXPECT_EQ(cache_.entries(), 4);  // acme's newest 3, and globex's 1
  EXPECT_EQ(cache_.evictions(), 2);
  EXPECT_FALSE(cache_.Lookup(KeyOf("a", "run-1").key, 1100).has_value());
  EXPECT_FALSE(cache_.Lookup(KeyOf("a", "run-2").key, 1100).has_value());
  for (int run = 3; run <= 5; ++run) {
    EXPECT_TRUE(cache_.Lookup(KeyOf("a", absl::StrCat("run-", run)).key, 1100).has_value());
  }
  EXPECT_TRUE(cache_.Lookup(KeyOf("other", "run-0", "globex").key, 1100).has_value());
  EXPECT_THAT(StoredKeys(), SizeIs(4)) << "evictions are deleted from the store too";

  // A lower limit after a restart applies at Load.
  ToolCache reloaded;
  reloaded.set_limits({.max_ttl_ms = 1'000'000, .max_entries_per_tenant = 1});
  store::WriteBatch batch;
  ASSERT_THAT(reloaded.Load(store_, 1100, &batch), IsOk());
  EXPECT_EQ(reloaded.entries(), 2);
  EXPECT_TRUE(reloaded.Lookup(KeyOf("a", "run-5").key, 1100).has_value());
}

// The entries of one scope instance go at once (a deleted run's).
TEST_F(ToolCacheTest, RemoveScope_DeletesThatScopeOnly) {
  Put(KeyOf("a", "run-1"), Result("1"), 10, 1000);
  Put(KeyOf("b", "run-1"), Result("2"), 10, 1000);
  Put(KeyOf("a", "run-2"), Result("3"), 10, 1000);
  store::WriteBatch batch;
  cache_.RemoveScope(KeyOf("a", "run-1").scope_prefix, &batch);
  Commit(batch);
  EXPECT_EQ(cache_.entries(), 1);
  EXPECT_TRUE(cache_.Lookup(KeyOf("a", "run-2").key, 1100).has_value());
  EXPECT_THAT(StoredKeys(), SizeIs(1));
}

}  // namespace
}  // namespace taskboard::cache
