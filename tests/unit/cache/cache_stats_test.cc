// CacheStats on its own (rows, order, bound) and as ToolCache keeps its
// entry counts through every mutation (put, replace, evict, expire, remove
// scope, load).

#include "scheduler/cache/cache_stats.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/cache/tool_cache.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::cache {
namespace {

using ::taskboard::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A row as "tenant/scope/tool entries hits misses coalesced".
std::string Describe(const CacheStatsRow& row) {
  return absl::StrCat(row.tenant, "/", CacheScopeKeyName(row.scope), "/", row.tool, " ",
                      row.entries, " ", row.hits, " ", row.misses, " ", row.coalesced);
}

std::vector<std::string> Describe(const std::vector<CacheStatsRow>& rows) {
  std::vector<std::string> out;
  for (const CacheStatsRow& row : rows) out.push_back(Describe(row));
  return out;
}

CacheKey KeyOf(absl::string_view tenant, v1::CacheScope scope, absl::string_view scope_id,
               absl::string_view tool, absl::string_view path) {
  absl::StatusOr<CacheKey> key =
      MakeCacheKey(tenant, scope, scope_id, tool, absl::StrCat(R"({"path":")", path, R"("})"), {});
  EXPECT_THAT(key, IsOk());
  return key.ok() ? *key : CacheKey{};
}

TEST(OwnerOfScopePrefix, ReadsTenantAndScopeBack) {
  for (v1::CacheScope scope :
       {v1::CACHE_SCOPE_RUN, v1::CACHE_SCOPE_REQUEST, v1::CACHE_SCOPE_SESSION}) {
    std::optional<ScopeOwner> owner = OwnerOfScopePrefix(ScopePrefix("acme", scope, "id-1"));
    ASSERT_TRUE(owner.has_value());
    EXPECT_EQ(owner->tenant, "acme");
    EXPECT_EQ(owner->scope, scope);
  }
  std::optional<ScopeOwner> empty_tenant =
      OwnerOfScopePrefix(KeyOf("", v1::CACHE_SCOPE_SESSION, "s", "read_file", "a").key);
  ASSERT_TRUE(empty_tenant.has_value());
  EXPECT_EQ(empty_tenant->tenant, "");
  EXPECT_EQ(empty_tenant->scope, v1::CACHE_SCOPE_SESSION);
}

TEST(OwnerOfScopePrefix, NotAPrefix_Nullopt) {
  EXPECT_EQ(OwnerOfScopePrefix(""), std::nullopt);
  EXPECT_EQ(OwnerOfScopePrefix("acme"), std::nullopt);
  EXPECT_EQ(OwnerOfScopePrefix(std::string("\0\0\0\x09"
                                           "acme",
                                           8)),
            std::nullopt);
  std::string unknown_scope = ScopePrefix("acme", v1::CACHE_SCOPE_RUN, "x");
  unknown_scope.replace(unknown_scope.find("run"), 3, "xyz");
  EXPECT_EQ(OwnerOfScopePrefix(unknown_scope), std::nullopt);
}

TEST(CacheStats, Rows_ByTenantScopeTool_FilteredByTenant) {
  CacheStats stats;
  const std::string beta_run = ScopePrefix("beta", v1::CACHE_SCOPE_RUN, "r1");
  const std::string acme_session = ScopePrefix("acme", v1::CACHE_SCOPE_SESSION, "s1");
  const std::string acme_run = ScopePrefix("acme", v1::CACHE_SCOPE_RUN, "r2");
  stats.CountLookup(beta_run, "read_file", CacheStats::Lookup::kMiss);
  stats.CountLookup(acme_session, "http_get", CacheStats::Lookup::kHit);
  stats.CountLookup(acme_run, "read_file", CacheStats::Lookup::kCoalesced);
  stats.CountLookup(acme_run, "list_files", CacheStats::Lookup::kHit);
  stats.EntryAdded(acme_run, "read_file");

  EXPECT_THAT(Describe(stats.Rows(std::nullopt)),
              ElementsAre("acme/run/list_files 0 1 0 0", "acme/run/read_file 1 0 0 1",
                          "acme/session/http_get 0 1 0 0", "beta/run/read_file 0 0 1 0"));
  EXPECT_THAT(Describe(stats.Rows("beta")), ElementsAre("beta/run/read_file 0 0 1 0"));
  EXPECT_THAT(stats.Rows("acm"), IsEmpty());
  EXPECT_THAT(stats.Rows("gamma"), IsEmpty());
}

TEST(CacheStats, NotACacheKey_Ignored) {
  CacheStats stats;
  stats.CountLookup("junk", "read_file", CacheStats::Lookup::kHit);
  stats.EntryAdded("", "read_file");
  EXPECT_THAT(stats.Rows(std::nullopt), IsEmpty());
}

TEST(CacheStats, ToolsPastTheBound_CountedAsOtherTools) {
  CacheStats stats;
  const std::string prefix = ScopePrefix("acme", v1::CACHE_SCOPE_RUN, "r1");
  for (size_t i = 0; i < CacheStats::kMaxToolsPerTenant; ++i) {
    stats.CountLookup(prefix, absl::StrCat("tool", i), CacheStats::Lookup::kMiss);
  }
  stats.EntryAdded(prefix, "one_more");
  stats.CountLookup(prefix, "yet_another", CacheStats::Lookup::kHit);
  // An existing tool keeps its row.
  stats.CountLookup(prefix, "tool0", CacheStats::Lookup::kHit);
  std::vector<CacheStatsRow> rows = stats.Rows("acme");
  ASSERT_EQ(rows.size(), CacheStats::kMaxToolsPerTenant + 1);
  int64_t other_entries = -1;
  for (const CacheStatsRow& row : rows) {
    if (row.tool == CacheStats::kOtherTools) {
      other_entries = row.entries;
      EXPECT_EQ(row.hits, 1);
    }
    if (row.tool == "tool0") EXPECT_EQ(row.hits, 1);
  }
  EXPECT_EQ(other_entries, 1);
  // Its entry leaves the row it was counted in.
  stats.EntryRemoved(prefix, "one_more");
  for (const CacheStatsRow& row : stats.Rows("acme")) EXPECT_EQ(row.entries, 0) << row.tool;
  // Another tenant has its own bound.
  stats.CountLookup(ScopePrefix("beta", v1::CACHE_SCOPE_RUN, "r1"), "one_more",
                    CacheStats::Lookup::kMiss);
  EXPECT_THAT(Describe(stats.Rows("beta")), ElementsAre("beta/run/one_more 0 0 1 0"));
}

// --- entries as ToolCache keeps them --------------------------------------------

class ToolCacheEntriesTest : public ::testing::Test {
 protected:
  void Put(const CacheKey& key, absl::string_view tool, int64_t ttl_ms = 1000,
           int64_t max_entries = 100) {
    store::WriteBatch batch;
    ToolCache::Entry entry;
    entry.tool_name = std::string(tool);
    entry.result_json = "\"x\"";
    entry.ttl_ms = ttl_ms;
    cache_.Put(key, std::move(entry), max_entries, now_, &batch);
    ASSERT_THAT(store_.Write(batch), IsOk());
  }
  std::vector<std::string> Rows(ToolCache& cache) {
    return Describe(cache.stats().Rows(std::nullopt));
  }

  store::MemoryStore store_;
  ToolCache cache_;
  int64_t now_ = 1'000'000;
};

TEST_F(ToolCacheEntriesTest, PutAndReplace_CountOnce) {
  const CacheKey a = KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", "a");
  Put(a, "read_file");
  Put(a, "read_file");  // replaces
  Put(KeyOf("acme", v1::CACHE_SCOPE_REQUEST, "q1", "list_files", "a"), "list_files");
  EXPECT_THAT(Rows(cache_),
              ElementsAre("acme/run/read_file 1 0 0 0", "acme/request/list_files 1 0 0 0"));
}

TEST_F(ToolCacheEntriesTest, EvictedPastMaxEntries_NotCounted) {
  for (int i = 0; i < 5; ++i) {
    Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", absl::StrCat(i)), "read_file", 1000,
        /*max_entries=*/3);
  }
  EXPECT_THAT(Rows(cache_), ElementsAre("acme/run/read_file 3 0 0 0"));
}

TEST_F(ToolCacheEntriesTest, EvictedPastTenantLimit_NotCounted) {
  cache_.set_limits({.max_entries_per_tenant = 2});
  for (int i = 0; i < 4; ++i) {
    Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, absl::StrCat("r", i), "read_file", "a"), "read_file");
  }
  EXPECT_THAT(Rows(cache_), ElementsAre("acme/run/read_file 2 0 0 0"));
}

TEST_F(ToolCacheEntriesTest, ExpiredAndSwept_NotCounted) {
  Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", "a"), "read_file", /*ttl_ms=*/10);
  Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", "b"), "read_file", /*ttl_ms=*/100);
  store::WriteBatch batch;
  cache_.Sweep(now_ + 50, &batch);
  EXPECT_THAT(Rows(cache_), ElementsAre("acme/run/read_file 1 0 0 0"));
}

TEST_F(ToolCacheEntriesTest, RemoveScope_DropsItsEntriesOnly) {
  Put(KeyOf("acme", v1::CACHE_SCOPE_REQUEST, "q1", "read_file", "a"), "read_file");
  Put(KeyOf("acme", v1::CACHE_SCOPE_REQUEST, "q1", "read_file", "b"), "read_file");
  Put(KeyOf("acme", v1::CACHE_SCOPE_REQUEST, "q2", "read_file", "a"), "read_file");
  store::WriteBatch batch;
  cache_.RemoveScope(ScopePrefix("acme", v1::CACHE_SCOPE_REQUEST, "q1"), &batch);
  EXPECT_THAT(Rows(cache_), ElementsAre("acme/request/read_file 1 0 0 0"));
}

TEST_F(ToolCacheEntriesTest, Load_RebuildsCountsWithoutExpiredEntries) {
  Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", "a"), "read_file", /*ttl_ms=*/10);
  Put(KeyOf("acme", v1::CACHE_SCOPE_RUN, "r1", "read_file", "b"), "read_file", /*ttl_ms=*/100);
  Put(KeyOf("beta", v1::CACHE_SCOPE_SESSION, "s1", "http_get", "a"), "http_get");

  ToolCache restarted;
  store::WriteBatch batch;
  ASSERT_THAT(restarted.Load(store_, now_ + 50, &batch), IsOk());
  EXPECT_THAT(Rows(restarted),
              ElementsAre("acme/run/read_file 1 0 0 0", "beta/session/http_get 1 0 0 0"));
  // Loading again replaces, never adds.
  ASSERT_THAT(restarted.Load(store_, now_ + 50, &batch), IsOk());
  EXPECT_THAT(Rows(restarted),
              ElementsAre("acme/run/read_file 1 0 0 0", "beta/session/http_get 1 0 0 0"));
}

}  // namespace
}  // namespace taskboard::cache
