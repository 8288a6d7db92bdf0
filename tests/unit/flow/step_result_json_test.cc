// StepResultJson: a step that produced JSON hands JSON on.

#include "common/json.h"
#include "gtest/gtest.h"
#include "scheduler/flow/plan_output.h"

namespace taskboard::flow {
namespace {

TEST(StepResultJson, SummaryHoldingJsonText_IsThatJson) {
  EXPECT_EQ(StepResultJson(R"({"summary": "{\"count\": 3}", "success": true})"),
            Json({{"count", 3}}));
  EXPECT_EQ(StepResultJson(R"({"summary": "```json\n[1, 2]\n```", "success": true})"),
            Json::array({1, 2}));
}

TEST(StepResultJson, SummaryThatIsAnObject_IsThatObject) {
  EXPECT_EQ(StepResultJson(R"({"summary": {"a": 1}, "success": true})"), Json({{"a", 1}}));
}

TEST(StepResultJson, JsonWithoutTheEnvelope_IsThatJson) {
  EXPECT_EQ(StepResultJson(R"({"files": ["a.cc"], "count": 1})"),
            Json({{"files", {"a.cc"}}, {"count", 1}}));
  EXPECT_EQ(StepResultJson("```json\n[{\"id\": 1}]\n```"), Json::array({{{"id", 1}}}));
}

TEST(StepResultJson, TextSummary_IsAString) {
  EXPECT_EQ(StepResultJson(R"({"summary": "found 3 files", "success": true})"),
            Json("found 3 files"));
}

TEST(StepResultJson, PlainText_IsAString) {
  EXPECT_EQ(StepResultJson("All done."), Json("All done."));
}

TEST(StepResultJson, ProseAroundJson_StaysText) {
  // Only part of the text is JSON; taking that part would drop the prose.
  EXPECT_EQ(StepResultJson(R"(Counted: {"count": 3}. Done.)"),
            Json(R"(Counted: {"count": 3}. Done.)"));
}

TEST(StepResultJson, ScalarJson_StaysText) {
  EXPECT_EQ(StepResultJson(R"({"summary": "42", "success": true})"), Json("42"));
  EXPECT_EQ(StepResultJson("true"), Json("true"));
}

TEST(StepResultJson, CamelCaseEnvelope_IsUnwrapped) {
  EXPECT_EQ(StepResultJson(R"({"Summary": "[1]", "Success": "true"})"), Json::array({1}));
}

}  // namespace
}  // namespace taskboard::flow
