#include "scheduler/flow/fanout_output.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::flow {
namespace {

TEST(MergeFanOutText, NoItems_IsEmpty) { EXPECT_EQ(MergeFanOutText({}), ""); }

TEST(MergeFanOutText, OneItem_HeaderBlankLineOutput) {
  EXPECT_EQ(MergeFanOutText({{"reviewer", "looks good"}}), "### [1/1] reviewer\n\nlooks good");
}

TEST(MergeFanOutText, ThreeItemsWithFailure_InInputOrderWithSeparators) {
  std::vector<FanOutItem> items = {
      {"scout", "found 2 files"},
      {"coder", "timed out", /*failed=*/true},
      {"scout", "{\"ok\": true}"},
  };
  EXPECT_EQ(MergeFanOutText(items),
            "### [1/3] scout\n\nfound 2 files"
            "\n\n---\n\n"
            "### [2/3] coder (failed)\n\ntimed out"
            "\n\n---\n\n"
            "### [3/3] scout\n\n{\"ok\": true}");
}

TEST(MergeFanOutJson, NoItems_IsEmptyArray) { EXPECT_EQ(MergeFanOutJson({}), Json::array()); }

TEST(MergeFanOutJson, MixedItems_ParsedTextOrNullInInputOrder) {
  std::vector<FanOutItem> items = {
      {"a", "Result: ```json\n{\"n\": 1}\n```"},
      {"b", "plain words"},
      {"c", "boom", /*failed=*/true},
      {"d", "[1, 2]"},
      {"e", "7"},
  };
  EXPECT_EQ(MergeFanOutJson(items), Json::parse(R"([{"n":1},"plain words",null,[1,2],7])"));
}

}  // namespace
}  // namespace taskboard::flow
