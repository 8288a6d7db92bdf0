// SavedFlows over a MemoryStore: versioning, lookups, listing, deletion, the
// limits on versions, flows and bytes per tenant, and the move of old keys.

#include "scheduler/engine/runs/saved_flows.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadValidFlow;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::FlowSpec Flow(const std::string& name, const std::string& task = "t") {
  return LoadValidFlow(R"({"name": ")" + name + R"(", "phases": [
      {"id": "a", "agent": "coder", "task": ")" +
                       task + R"("}]})");
}

std::vector<std::string> Names(const v1::ListFlowsResponse& response) {
  std::vector<std::string> names;
  for (const v1::SavedFlow& flow : response.flows()) {
    names.push_back(flow.name() + "@" + std::to_string(flow.version()));
  }
  return names;
}

class SavedFlowsTest : public ::testing::Test {
 protected:
  store::MemoryStore store_;
  std::unique_ptr<SavedFlows> owned_ = *SavedFlows::Create(&store_);
  SavedFlows& flows_ = *owned_;
};

TEST_F(SavedFlowsTest, Save_SameNameTwice_Versions1Then2) {
  absl::StatusOr<v1::SavedFlow> first = flows_.Save("", Flow("digest", "one"), "source one", 1000);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->name(), "digest");
  EXPECT_EQ(first->version(), 1);
  EXPECT_EQ(first->source(), "source one");
  EXPECT_EQ(first->created_at_unix_ms(), 1000);
  absl::StatusOr<v1::SavedFlow> second = flows_.Save("", Flow("digest", "two"), "source two", 2000);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->version(), 2);
}

TEST_F(SavedFlowsTest, Get_LatestOrSpecificVersion) {
  ASSERT_THAT(flows_.Save("", Flow("digest", "one"), "source one", 1000), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("digest", "two"), "source two", 2000), IsOk());

  absl::StatusOr<v1::SavedFlow> latest = flows_.Get("", "digest", 0);
  ASSERT_THAT(latest, IsOk());
  EXPECT_EQ(latest->version(), 2);
  EXPECT_EQ(latest->spec().taskflow().phases(0).task(), "two");

  absl::StatusOr<v1::SavedFlow> v1 = flows_.Get("", "digest", 1);
  ASSERT_THAT(v1, IsOk());
  EXPECT_EQ(v1->version(), 1);
  EXPECT_EQ(v1->source(), "source one");
  EXPECT_EQ(v1->spec().taskflow().phases(0).task(), "one");
}

TEST_F(SavedFlowsTest, Get_Unknown_NotFoundNamesFlowAndHowToList) {
  EXPECT_THAT(flows_.Get("", "nope", 0),
              StatusIs(absl::StatusCode::kNotFound,
                       "saved flow 'nope' not found; list saved flows with `taskboard flows "
                       "list`"));
  ASSERT_THAT(flows_.Save("", Flow("digest"), "", 1), IsOk());
  EXPECT_THAT(flows_.Get("", "digest", 3),
              StatusIs(absl::StatusCode::kNotFound,
                       "saved flow 'digest' version 3 not found; list saved flows with "
                       "`taskboard flows list`"));
}

TEST_F(SavedFlowsTest, Get_NameThatPrefixesAnother_DoesNotSeeTheOther) {
  ASSERT_THAT(flows_.Save("", Flow("ab"), "", 1), IsOk());
  EXPECT_THAT(flows_.Get("", "a", 0), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(flows_.Save("", Flow("a"), "", 1), IsOk());
  EXPECT_EQ(flows_.Get("", "a", 0)->version(), 1);
}

TEST_F(SavedFlowsTest, List_LatestVersionOfEachFlowByName) {
  ASSERT_THAT(flows_.Save("", Flow("gamma"), "", 1), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("beta"), "", 1), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("beta"), "", 2), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("alpha-long"), "", 3), IsOk());
  absl::StatusOr<v1::ListFlowsResponse> listed = flows_.List("", v1::ListFlowsRequest());
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Names(*listed), ElementsAre("alpha-long@1", "beta@2", "gamma@1"));
  EXPECT_EQ(listed->next_page_token(), "");
}

TEST_F(SavedFlowsTest, List_Paging_PagesFollowTheToken) {
  for (const char* name : {"aa", "bb", "cc"})
    ASSERT_THAT(flows_.Save("", Flow(name), "", 1), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("bb"), "", 2), IsOk());
  v1::ListFlowsRequest request;
  request.set_page_size(2);
  absl::StatusOr<v1::ListFlowsResponse> page1 = flows_.List("", request);
  ASSERT_THAT(page1, IsOk());
  EXPECT_THAT(Names(*page1), ElementsAre("aa@1", "bb@2"));
  ASSERT_EQ(page1->next_page_token(), "bb");
  request.set_page_token(page1->next_page_token());
  absl::StatusOr<v1::ListFlowsResponse> page2 = flows_.List("", request);
  ASSERT_THAT(page2, IsOk());
  EXPECT_THAT(Names(*page2), ElementsAre("cc@1"));
  EXPECT_EQ(page2->next_page_token(), "");
}

TEST_F(SavedFlowsTest, List_Empty_NoFlows) {
  absl::StatusOr<v1::ListFlowsResponse> listed = flows_.List("", v1::ListFlowsRequest());
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->flows(), IsEmpty());
}

TEST_F(SavedFlowsTest, Delete_RemovesEveryVersion) {
  ASSERT_THAT(flows_.Save("", Flow("digest"), "", 1), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("digest"), "", 2), IsOk());
  ASSERT_THAT(flows_.Save("", Flow("other"), "", 3), IsOk());
  absl::StatusOr<int64_t> deleted = flows_.Delete("", "digest");
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(*deleted, 2);
  EXPECT_THAT(flows_.Get("", "digest", 0), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(flows_.Get("", "digest", 1), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(flows_.Get("", "other", 0)->version(), 1);
  EXPECT_THAT(flows_.Delete("", "digest"),
              StatusIs(absl::StatusCode::kNotFound,
                       "saved flow 'digest' not found; list saved flows with `taskboard flows "
                       "list`"));
}

TEST_F(SavedFlowsTest, Tenants_EachHasItsOwnFlowsUnderTheSameName) {
  ASSERT_THAT(flows_.Save("acme", Flow("digest", "acme's"), "a", 1000), IsOk());
  ASSERT_THAT(flows_.Save("acme", Flow("digest", "acme's"), "a", 1000), IsOk());
  absl::StatusOr<v1::SavedFlow> globex = flows_.Save("globex", Flow("digest", "globex's"), "g", 1);
  ASSERT_THAT(globex, IsOk());
  EXPECT_EQ(globex->version(), 1);  // not acme's version 3

  absl::StatusOr<v1::SavedFlow> read = flows_.Get("globex", "digest", 0);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->source(), "g");
  EXPECT_EQ(read->name(), "digest");
  EXPECT_THAT(flows_.Get("globex", "digest", 2), StatusIs(absl::StatusCode::kNotFound));
  // Without a tenant (authentication off) neither tenant's flow is visible.
  EXPECT_THAT(flows_.Get("", "digest", 0), StatusIs(absl::StatusCode::kNotFound));

  absl::StatusOr<v1::ListFlowsResponse> listed = flows_.List("acme", {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Names(*listed), ElementsAre("digest@2"));
  listed = flows_.List("", {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->flows(), IsEmpty());

  EXPECT_THAT(flows_.Delete("globex", "digest"), IsOk());
  EXPECT_THAT(flows_.Get("acme", "digest", 0), IsOk());
}

std::vector<int64_t> Versions(store::Store& store, const std::string& tenant,
                              const std::string& name) {
  std::vector<int64_t> versions;
  EXPECT_THAT(store.ScanPrefix(store::Column::kFlows, store::keys::FlowVersions(tenant, name),
                               [&](absl::string_view key, absl::string_view) {
                                 versions.push_back(
                                     static_cast<int64_t>(store::keys::ParseFlow(key)->version));
                                 return true;
                               }),
              IsOk());
  return versions;
}

std::unique_ptr<SavedFlows> Open(store::Store& store, SavedFlowLimits limits) {
  absl::StatusOr<std::unique_ptr<SavedFlows>> flows = SavedFlows::Create(&store, limits);
  EXPECT_THAT(flows, IsOk());
  return flows.ok() ? *std::move(flows) : nullptr;
}

TEST(SavedFlowLimits, HundredTimesTheVersions_KeepsTheNewestAndGoesOnSaving) {
  store::MemoryStore store;
  std::unique_ptr<SavedFlows> flows = Open(store, {.max_versions = 3});
  for (int i = 1; i <= 300; ++i) ASSERT_THAT(flows->Save("acme", Flow("digest"), "", i), IsOk());
  EXPECT_THAT(Versions(store, "acme", "digest"), ElementsAre(298, 299, 300));
  EXPECT_EQ(flows->Get("acme", "digest", 0)->version(), 300);
  EXPECT_THAT(flows->Get("acme", "digest", 1), StatusIs(absl::StatusCode::kNotFound));
  // Another name keeps its own versions.
  ASSERT_THAT(flows->Save("acme", Flow("other"), "", 1), IsOk());
  EXPECT_THAT(Versions(store, "acme", "other"), ElementsAre(1));
}

TEST(SavedFlowLimits, MaxVersionsLowered_NextSavePrunesDownToIt) {
  store::MemoryStore store;
  std::unique_ptr<SavedFlows> flows = Open(store, {.max_versions = 10});
  for (int i = 1; i <= 6; ++i) ASSERT_THAT(flows->Save("", Flow("digest"), "", i), IsOk());
  flows = Open(store, {.max_versions = 2});
  ASSERT_THAT(flows->Save("", Flow("digest"), "", 7), IsOk());
  EXPECT_THAT(Versions(store, "", "digest"), ElementsAre(6, 7));
}

TEST(SavedFlowLimits, HundredTimesTheFlowCount_RefusedNamingTheFlag) {
  store::MemoryStore store;
  std::unique_ptr<SavedFlows> flows = Open(store, {.max_flows_per_tenant = 2});
  ASSERT_THAT(flows->Save("acme", Flow("one"), "", 1), IsOk());
  ASSERT_THAT(flows->Save("acme", Flow("two"), "", 1), IsOk());
  for (int i = 0; i < 200; ++i) {
    EXPECT_THAT(flows->Save("acme", Flow("extra-" + std::to_string(i)), "", 1),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         HasSubstr("there are 2 saved flows for tenant 'acme', the scheduler's "
                                   "limit per tenant (scheduler flag "
                                   "--saved-flows-max-per-tenant)")));
  }
  EXPECT_THAT(flows->Get("acme", "extra-0", 0), StatusIs(absl::StatusCode::kNotFound));
  // New versions of its flows, and another tenant's flows, still save.
  EXPECT_THAT(flows->Save("acme", Flow("one"), "", 2), IsOk());
  EXPECT_THAT(flows->Save("globex", Flow("one"), "", 2), IsOk());
  // A delete makes room.
  ASSERT_THAT(flows->Delete("acme", "two"), IsOk());
  EXPECT_THAT(flows->Save("acme", Flow("three"), "", 3), IsOk());
}

TEST(SavedFlowLimits, OverTheTenantBytes_RefusedNamingTheFlagAndNothingWritten) {
  store::MemoryStore store;
  const std::string big(10'000, 'x');
  std::unique_ptr<SavedFlows> flows = Open(store, {.max_bytes_per_tenant = 25'000});
  ASSERT_THAT(flows->Save("acme", Flow("a"), big, 1), IsOk());
  ASSERT_THAT(flows->Save("acme", Flow("b"), big, 1), IsOk());
  // 100 times the room left.
  EXPECT_THAT(flows->Save("acme", Flow("c"), std::string(500'000, 'x'), 1),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("over the scheduler's limit of 25000 bytes per tenant (scheduler "
                                 "flag --saved-flows-max-bytes-per-tenant)")));
  EXPECT_THAT(flows->Save("acme", Flow("a"), big, 2),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(Versions(store, "acme", "a"), ElementsAre(1));
  EXPECT_THAT(flows->Get("acme", "c", 0), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(flows->Save("globex", Flow("a"), big, 1), IsOk());
  EXPECT_THAT(flows->Save("acme", Flow("small"), "", 1), IsOk());
}

TEST(SavedFlowLimits, PrunedVersionsFreeTheirBytes) {
  store::MemoryStore store;
  const std::string big(10'000, 'x');
  std::unique_ptr<SavedFlows> flows =
      Open(store, {.max_versions = 2, .max_bytes_per_tenant = 25'000});
  for (int i = 1; i <= 20; ++i) ASSERT_THAT(flows->Save("acme", Flow("a"), big, i), IsOk()) << i;
  EXPECT_THAT(Versions(store, "acme", "a"), ElementsAre(19, 20));
}

TEST(SavedFlowLimits, QuotaCountedFromTheStore_HoldsAcrossARestart) {
  store::MemoryStore store;
  const SavedFlowLimits limits{.max_flows_per_tenant = 2, .max_bytes_per_tenant = 25'000};
  {
    std::unique_ptr<SavedFlows> flows = Open(store, limits);
    ASSERT_THAT(flows->Save("acme", Flow("one"), std::string(10'000, 'x'), 1), IsOk());
    ASSERT_THAT(flows->Save("acme", Flow("one"), std::string(10'000, 'x'), 2), IsOk());
    ASSERT_THAT(flows->Save("acme", Flow("two"), "", 3), IsOk());
  }
  std::unique_ptr<SavedFlows> restarted = Open(store, limits);
  EXPECT_THAT(restarted->Save("acme", Flow("three"), "", 4),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("there are 2 saved flows")));
  EXPECT_THAT(restarted->Save("acme", Flow("two"), std::string(10'000, 'x'), 4),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("--saved-flows-max-bytes-per-tenant")));
  ASSERT_THAT(restarted->Delete("acme", "one"), IsOk());
  EXPECT_THAT(restarted->Save("acme", Flow("three"), std::string(10'000, 'x'), 5), IsOk());
}

// Counts the flows-column keys scans visit.
class CountingStore : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  absl::Status Scan(store::Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override {
    return inner_.Scan(column, start, end, [&](absl::string_view key, absl::string_view value) {
      if (column == store::Column::kFlows) ++visited;
      return visit(key, value);
    });
  }
  int visited = 0;
};

TEST(SavedFlowLimits, ListAndQuota_ReadOnlyTheTenantsOwnKeys) {
  store::MemoryStore inner;
  CountingStore store(inner);
  std::unique_ptr<SavedFlows> flows = Open(store, {});
  for (int i = 0; i < 50; ++i) {
    ASSERT_THAT(flows->Save("globex", Flow("g" + std::to_string(i)), "", 1), IsOk());
  }
  ASSERT_THAT(flows->Save("acme", Flow("digest"), "", 1), IsOk());
  ASSERT_THAT(flows->Save("acme", Flow("digest"), "", 2), IsOk());
  store.visited = 0;
  absl::StatusOr<v1::ListFlowsResponse> listed = flows->List("acme", {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Names(*listed), ElementsAre("digest@2"));
  EXPECT_EQ(store.visited, 2) << "acme's two versions, none of globex's 50 flows";

  // A restarted scheduler counts acme's quota from acme's keys alone.
  flows = Open(store, {});
  store.visited = 0;
  ASSERT_THAT(flows->Save("acme", Flow("digest"), "", 3), IsOk());
  EXPECT_EQ(store.visited, 4)
      << "acme's two versions, read for its quota and for the name's versions";
}

TEST(SavedFlowLimits, Create_MovesFlowsStoredUnderTheOldKeys) {
  store::MemoryStore store;
  v1::SavedFlow old;
  old.set_name("digest");
  old.set_version(4);
  *old.mutable_spec() = Flow("digest");
  store::WriteBatch batch;
  batch.Put(store::Column::kFlows, store::keys::LegacyFlow("acme/digest", 4),
            old.SerializeAsString());
  batch.Put(store::Column::kFlows, store::keys::LegacyFlow("digest", 4), old.SerializeAsString());
  ASSERT_THAT(store.Write(batch), IsOk());

  std::unique_ptr<SavedFlows> flows = Open(store, {});
  EXPECT_EQ(flows->Get("acme", "digest", 0)->version(), 4);
  EXPECT_EQ(flows->Get("", "digest", 4)->version(), 4);
  EXPECT_THAT(Names(*flows->List("acme", {})), ElementsAre("digest@4"));
  EXPECT_EQ(flows->Save("acme", Flow("digest"), "", 1)->version(), 5);
  absl::StatusOr<std::optional<std::string>> old_key =
      store.Get(store::Column::kFlows, store::keys::LegacyFlow("acme/digest", 4));
  ASSERT_THAT(old_key, IsOk());
  EXPECT_FALSE(old_key->has_value()) << "the old key is gone";
}

}  // namespace
}  // namespace taskboard::engine
