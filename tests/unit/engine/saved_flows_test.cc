// SavedFlows over a MemoryStore: versioning, lookups, listing and deletion.

#include "scheduler/engine/saved_flows.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::engine {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadValidFlow;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
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
  SavedFlows flows_{&store_};
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

}  // namespace
}  // namespace taskboard::engine
