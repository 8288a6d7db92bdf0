#include "scheduler/flow/map_items.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ResolveMapItems, Array_ReturnsElements) {
  absl::StatusOr<std::vector<Json>> items = ResolveMapItems("m", Json::parse(R"([1, "b", {}])"));
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, ElementsAre(Json(1), Json("b"), Json::object()));
}

TEST(ResolveMapItems, EmptyArray_ReturnsNoItems) {
  absl::StatusOr<std::vector<Json>> items = ResolveMapItems("m", Json::array());
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, IsEmpty());
}

TEST(ResolveMapItems, EachWrapperKey_ReturnsItsArray) {
  for (const char* key : {"items", "results", "list", "data"}) {
    SCOPED_TRACE(key);
    Json wrapped = {{"count", 2}, {key, {"x", "y"}}};
    absl::StatusOr<std::vector<Json>> items = ResolveMapItems("m", wrapped);
    ASSERT_THAT(items, IsOk());
    EXPECT_THAT(*items, ElementsAre(Json("x"), Json("y")));
  }
}

TEST(ResolveMapItems, SeveralWrapperKeys_FollowsPrecedence) {
  absl::StatusOr<std::vector<Json>> items = ResolveMapItems(
      "m", Json::parse(R"({"data": [4], "list": [3], "results": [2], "items": [1]})"));
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, ElementsAre(Json(1)));
}

TEST(ResolveMapItems, WrapperKeyNotArray_NextKeyUsed) {
  absl::StatusOr<std::vector<Json>> items =
      ResolveMapItems("m", Json::parse(R"({"items": "none", "data": [7]})"));
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, ElementsAre(Json(7)));
}

TEST(ResolveMapItems, StringWithEmbeddedArray_ReturnsElements) {
  absl::StatusOr<std::vector<Json>> items =
      ResolveMapItems("m", Json("Files to audit:\n```json\n[\"a.cc\", \"b.cc\"]\n```"));
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, ElementsAre(Json("a.cc"), Json("b.cc")));
}

TEST(ResolveMapItems, StringWithWrappedArray_ReturnsElements) {
  absl::StatusOr<std::vector<Json>> items =
      ResolveMapItems("m", Json(R"(Found: {"results": [{"id": 1}]})"));
  ASSERT_THAT(items, IsOk());
  EXPECT_THAT(*items, ElementsAre(Json::parse(R"({"id":1})")));
}

TEST(ResolveMapItems, StringWithoutArray_FailsShowingTheString) {
  EXPECT_THAT(ResolveMapItems("audit", Json("no files")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "map phase 'audit': 'over' did not resolve to an array (got: no files)"));
}

TEST(ResolveMapItems, ObjectWithoutArray_FailsShowingCompactJson) {
  EXPECT_THAT(
      ResolveMapItems("m", Json::parse(R"({"items": 3, "x": null})")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               R"(map phase 'm': 'over' did not resolve to an array (got: {"items":3,"x":null}))"));
  EXPECT_THAT(ResolveMapItems("m", Json(12)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "map phase 'm': 'over' did not resolve to an array (got: 12)"));
}

TEST(ResolveMapItems, LongValue_ShowsFirst80Chars) {
  std::string long_text = std::string(79, 'a') + "bcdef";
  EXPECT_THAT(ResolveMapItems("m", Json(long_text)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "map phase 'm': 'over' did not resolve to an array (got: " +
                           std::string(79, 'a') + "b)"));
}

TEST(ResolveMapItems, LongMultibyteValue_NeverSplitsACharacter) {
  std::string long_text;
  for (int i = 0; i < 90; ++i) long_text += "\u00e9";  // Two bytes each.
  std::string expected_shown;
  for (int i = 0; i < 80; ++i) expected_shown += "\u00e9";
  EXPECT_THAT(
      ResolveMapItems("m", Json(long_text)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "map phase 'm': 'over' did not resolve to an array (got: " + expected_shown + ")"));
}

}  // namespace
}  // namespace taskboard::flow
