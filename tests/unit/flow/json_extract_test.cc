#include "scheduler/flow/json_extract.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::flow {
namespace {

using ::testing::Eq;
using ::testing::Optional;

TEST(ExtractJson, WholeText_ReturnsIt) {
  EXPECT_THAT(ExtractJson("  {\"a\": [1, 2]}\n"), Optional(Eq(Json::parse(R"({"a":[1,2]})"))));
}

TEST(ExtractJson, WholeTextScalar_ReturnsScalar) {
  EXPECT_THAT(ExtractJson(" 42 "), Optional(Eq(Json(42))));
  EXPECT_THAT(ExtractJson("\"x\""), Optional(Eq(Json("x"))));
  EXPECT_THAT(ExtractJson("null"), Optional(Eq(Json(nullptr))));
}

TEST(ExtractJson, FencedBlock_ReturnsItsContent) {
  EXPECT_THAT(ExtractJson("Here you go:\n```json\n{\"files\": [\"a.cc\"]}\n```\nDone."),
              Optional(Eq(Json::parse(R"({"files":["a.cc"]})"))));
}

TEST(ExtractJson, FencedBlockUppercaseTag_ReturnsItsContent) {
  EXPECT_THAT(ExtractJson("```JSON\n[1]\n```"), Optional(Eq(Json::parse("[1]"))));
}

TEST(ExtractJson, FencedBlockOnOneLine_ReturnsItsContent) {
  EXPECT_THAT(ExtractJson("x ```json {\"a\": 1}``` y"), Optional(Eq(Json::parse(R"({"a":1})"))));
}

TEST(ExtractJson, JsonFenceBeatsEarlierUntaggedFence) {
  EXPECT_THAT(ExtractJson("```\n[1]\n```\nand\n```json\n[2]\n```"),
              Optional(Eq(Json::parse("[2]"))));
}

TEST(ExtractJson, UntaggedFence_UsedWhenNoJsonFence) {
  EXPECT_THAT(ExtractJson("Result:\n```\n\"just text\"\n```\n"), Optional(Eq(Json("just text"))));
}

TEST(ExtractJson, FirstJsonFenceInvalid_TriesNextJsonFence) {
  EXPECT_THAT(ExtractJson("```json\n{oops\n```\n```json\n{\"ok\": true}\n```"),
              Optional(Eq(Json::parse(R"({"ok":true})"))));
}

TEST(ExtractJson, OtherLanguageFence_IsIgnored) {
  EXPECT_THAT(ExtractJson("```python\nx = 1\n```\n```json\n[3]\n```"),
              Optional(Eq(Json::parse("[3]"))));
}

TEST(ExtractJson, EmbeddedObject_ReturnsBalancedSpan) {
  EXPECT_THAT(ExtractJson("The answer is {\"a\": {\"b\": [1, {\"c\": 2}]}} as requested."),
              Optional(Eq(Json::parse(R"({"a":{"b":[1,{"c":2}]}})"))));
}

TEST(ExtractJson, EmbeddedSpan_BracketsInsideStringsIgnored) {
  EXPECT_THAT(ExtractJson(R"(Result: {"text": "a } and ] and { [", "n": 1} trailing })"),
              Optional(Eq(Json::parse(R"({"text":"a } and ] and { [","n":1})"))));
}

TEST(ExtractJson, EmbeddedSpan_EscapedQuotesRespected) {
  EXPECT_THAT(ExtractJson(R"(out: ["say \"hi}\"", "back\\"] end)"),
              Optional(Eq(Json::parse(R"(["say \"hi}\"","back\\"])"))));
}

TEST(ExtractJson, ProseBracketFirst_TriesNextOpeningBracket) {
  EXPECT_THAT(ExtractJson("[note] see {item} then [1, 2]"), Optional(Eq(Json::parse("[1,2]"))));
}

TEST(ExtractJson, ProseBracketAroundJson_FindsInnerJson) {
  EXPECT_THAT(ExtractJson("{Here it is: {\"a\": 1}}"), Optional(Eq(Json::parse(R"({"a":1})"))));
}

TEST(ExtractJson, UnclosedBracketBefore_FindsLaterJson) {
  EXPECT_THAT(ExtractJson("a [ b {\"x\": 1}"), Optional(Eq(Json::parse(R"({"x":1})"))));
}

TEST(ExtractJson, EmbeddedScalar_IsNotFound) {
  EXPECT_EQ(ExtractJson("the count is 42"), std::nullopt);
}

TEST(ExtractJson, InvalidJson_ReturnsNullopt) {
  EXPECT_EQ(ExtractJson("{\"a\": }"), std::nullopt);
  EXPECT_EQ(ExtractJson("[1, 2"), std::nullopt);
  EXPECT_EQ(ExtractJson("[1, 2}"), std::nullopt);
}

TEST(ExtractJson, TextWithoutJson_ReturnsNullopt) {
  EXPECT_EQ(ExtractJson("All good, nothing to report."), std::nullopt);
  EXPECT_EQ(ExtractJson(""), std::nullopt);
  EXPECT_EQ(ExtractJson("   \n"), std::nullopt);
}

}  // namespace
// Hostile outputs: each failed span restarts the scan one bracket on, so
// these would take minutes of the engine thread without the scan budget
// (ctest's timeout fails the test then).
TEST(ExtractJson, HundredThousandUnclosedBrackets_FindsNothingQuickly) {
  EXPECT_EQ(ExtractJson(std::string(100'000, '[')), std::nullopt);
  EXPECT_EQ(ExtractJson(std::string(100'000, '{')), std::nullopt);
}

TEST(ExtractJson, HundredThousandDeepBalancedBrackets_IsTooDeepToExtract) {
  EXPECT_EQ(ExtractJson(std::string(100'000, '[') + std::string(100'000, ']')), std::nullopt);
}

TEST(ExtractJson, DeepProseBeforeRealJson_StillFindsTheJson) {
  const std::string text = "notes [" + std::string(70, '[') + " then the answer: {\"ok\": true}";
  EXPECT_THAT(ExtractJson("notes [a] [b] then {\"ok\": true}"),
              Optional(Eq(Json::parse(R"({"ok":true})"))));
  EXPECT_THAT(ExtractJson(text), Optional(Eq(Json::parse(R"({"ok":true})"))));
}

TEST(WholeTextJson, WholeTextOrOneFenceAroundIt_IsJson) {
  EXPECT_THAT(WholeTextJson(" {\"a\": 1} "), Optional(Eq(Json::parse(R"({"a":1})"))));
  EXPECT_THAT(WholeTextJson("```json\n[1]\n```\n"), Optional(Eq(Json::parse("[1]"))));
  EXPECT_THAT(WholeTextJson("```\n[1]\n```"), Optional(Eq(Json::parse("[1]"))));
}

TEST(WholeTextJson, JsonInsideMoreText_IsNot) {
  EXPECT_EQ(WholeTextJson("Result: {\"a\": 1}"), std::nullopt);
  EXPECT_EQ(WholeTextJson("Result:\n```json\n[1]\n```"), std::nullopt);
  EXPECT_EQ(WholeTextJson("```json\n[1]\n```\n```json\n[2]\n```"), std::nullopt);
}

TEST(NoJsonInOutput, NoBrackets_SaysNoJson) {
  EXPECT_EQ(NoJsonInOutput("just prose"), "output holds no JSON");
}

TEST(NoJsonInOutput, BrokenFencedBlock_SaysWhyItDoesNotParse) {
  const std::string message = NoJsonInOutput("Here:\n```json\n{\"a\": 1,}\n```");
  EXPECT_THAT(message, ::testing::HasSubstr("the ```json block is not valid: invalid JSON"));
  EXPECT_THAT(message, ::testing::HasSubstr("no trailing commas"));
}

}  // namespace taskboard::flow
