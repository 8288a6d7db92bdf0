#include "scheduler/flow/cache_if.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Evaluates `predicate` over result/args given as JSON text.
bool Holds(absl::string_view predicate, absl::string_view result_json,
           absl::string_view args_json = "{}") {
  absl::StatusOr<CacheIf> cache_if = CacheIf::Parse(predicate);
  EXPECT_THAT(cache_if, IsOk()) << predicate;
  if (!cache_if.ok()) return false;
  return cache_if->Evaluate(*ParseJson(result_json), *ParseJson(args_json));
}

void ExpectParseError(absl::string_view predicate, int column, absl::string_view expected) {
  EXPECT_THAT(CacheIf::Parse(predicate),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(absl::StrCat("column ", column, ":")),
                             HasSubstr(std::string(expected)))))
      << predicate;
}

TEST(CacheIf, Equality_OnStatus) {
  EXPECT_TRUE(Holds("result.status == 200", R"({"status":200})"));
  EXPECT_FALSE(Holds("result.status == 200", R"({"status":503})"));
  EXPECT_TRUE(Holds("result.status != 200", R"({"status":503})"));
  EXPECT_TRUE(Holds("result.status == 200", R"({"status":200.0})"));
  EXPECT_FALSE(Holds("result.status == 200", R"({"status":"200"})"));
  EXPECT_TRUE(Holds(R"(result.kind == "file")", R"({"kind":"file"})"));
  EXPECT_TRUE(Holds("result.ok == true && result.err == null", R"({"ok":true,"err":null})"));
}

TEST(CacheIf, BarePath_IsExistsAndTruthy) {
  EXPECT_TRUE(Holds("result.ok", R"({"ok":true})"));
  EXPECT_TRUE(Holds("result.ok", R"({"ok":"yes"})"));
  EXPECT_TRUE(Holds("result.ok", R"({"ok":[0]})"));
  EXPECT_TRUE(Holds("result.ok", R"({"ok":-1})"));
  EXPECT_FALSE(Holds("result.ok", R"({})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":false})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":null})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":0})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":""})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":[]})"));
  EXPECT_FALSE(Holds("result.ok", R"({"ok":{}})"));
  EXPECT_TRUE(Holds("result", R"("any text")"));
}

TEST(CacheIf, MissingPath_ComparesAsNull) {
  EXPECT_TRUE(Holds("result.nothing == null", "{}"));
  EXPECT_TRUE(Holds("result.a.b.c == null", R"({"a":1})"));
  EXPECT_TRUE(Holds("result.items[5] == null", R"({"items":[1]})"));
  EXPECT_FALSE(Holds("result.nothing != null", "{}"));
  // Ordering with null is never true.
  EXPECT_FALSE(Holds("result.nothing < 1", "{}"));
  EXPECT_FALSE(Holds("result.nothing >= 1", "{}"));
}

TEST(CacheIf, Ordering_NumbersAndStrings) {
  EXPECT_TRUE(Holds("result.size < 1000", R"({"size":999})"));
  EXPECT_FALSE(Holds("result.size < 1000", R"({"size":1000})"));
  EXPECT_TRUE(Holds("result.size <= 1000", R"({"size":1000})"));
  EXPECT_TRUE(Holds("result.size > -1.5", R"({"size":0})"));
  EXPECT_TRUE(Holds("result.size >= 1e3", R"({"size":1000})"));
  EXPECT_TRUE(Holds(R"(result.v < "b")", R"({"v":"abc"})"));
  // Mixed types never order.
  EXPECT_FALSE(Holds(R"(result.v < "b")", R"({"v":1})"));
  EXPECT_FALSE(Holds(R"(result.v > "b")", R"({"v":1})"));
}

TEST(CacheIf, PathsIntoArraysQuotedFieldsAndArgs) {
  const char* result =
      R"({"items":[{"ok":false},{"ok":true}],"headers":{"content-type":"x","a b":1}})";
  EXPECT_TRUE(Holds("result.items[1].ok", result));
  EXPECT_FALSE(Holds("result.items[0].ok", result));
  EXPECT_TRUE(Holds(R"(result.headers["a b"] == 1)", result));
  EXPECT_TRUE(Holds(R"(result.headers.content-type == "x")", result));
  EXPECT_TRUE(Holds(R"(args.path == "/etc/hosts")", "{}", R"({"path":"/etc/hosts"})"));
  EXPECT_FALSE(Holds("result.items.ok", result));  // a field of an array is missing
}

TEST(CacheIf, LogicPrecedenceAndNot) {
  EXPECT_TRUE(Holds("result.a || result.b && result.c", R"({"a":true,"b":false})"));
  EXPECT_FALSE(Holds("(result.a || result.b) && result.c", R"({"a":true,"b":false})"));
  EXPECT_TRUE(Holds("!result.error", "{}"));
  EXPECT_FALSE(Holds("!!result.error", "{}"));
  EXPECT_TRUE(Holds("!(result.status == 500)", R"({"status":200})"));
  // `!` binds tighter than `==`, as in C: (!200) == false.
  EXPECT_TRUE(Holds("!result.status == false", R"({"status":200})"));
}

TEST(CacheIf, ObjectEquality_IgnoresKeyOrder) {
  EXPECT_TRUE(
      Holds("result.o == args.o", R"({"o":{"a":1,"b":[1,2]}})", R"({"o":{"b":[1,2],"a":1}})"));
  EXPECT_FALSE(Holds("result.o == args.o", R"({"o":{"a":1}})", R"({"o":{"a":2}})"));
}

TEST(CacheIf, Parse_KeepsText) { EXPECT_EQ(CacheIf::Parse("result.ok")->text(), "result.ok"); }

TEST(CacheIf, Parse_SingleEquals_PointsAtIt) {
  ExpectParseError("result.status = 200", 15, "expected '==' (a single '=' is not an operator)");
}

TEST(CacheIf, Parse_MissingOperand_SaysValueExpectedAtEnd) {
  ExpectParseError("result.status ==", 17, "expected a value");
  ExpectParseError("result.status ==", 17, "found the end of the predicate");
  ExpectParseError("", 1, "expected a value");
  ExpectParseError("true && ", 9, "expected a value");
}

TEST(CacheIf, Parse_UnknownRoot_SuggestsQuotes) {
  ExpectParseError("status == 200", 1, "a path starting with 'result' or 'args'");
  ExpectParseError(R"(result.kind == file)", 16, "or a quoted string (\"file\")");
  ExpectParseError("status == 200", 1, "did you mean result.status?");
}

TEST(CacheIf, Parse_BadPathSteps) {
  ExpectParseError("result.items.0", 14, "use [N] for array elements");
  ExpectParseError("result.", 8, "a field name after '.'");
  ExpectParseError("result[x]", 8,
                   "an array index (a non-negative integer) or a quoted field name");
  ExpectParseError("result[1", 9, "expected ']'");
}

TEST(CacheIf, Parse_UnbalancedParenthesis) {
  ExpectParseError("(result.a", 10, "expected ')'");
  ExpectParseError("result.a)", 9, "expected '&&', '||' or the end");
}

TEST(CacheIf, Parse_ChainedComparison_Rejected) {
  ExpectParseError("result.a == 1 == 2", 15, "comparisons cannot be chained");
}

TEST(CacheIf, Parse_SingleAmpersand_SaysDouble) {
  ExpectParseError("result.a & result.b", 10, "expected '&&'");
  ExpectParseError("result.a | result.b", 10, "expected '||'");
}

TEST(CacheIf, Parse_BadLiterals) {
  ExpectParseError(R"(result.a == "abc)", 13, "has no closing '\"'");
  ExpectParseError("result.a == 1.2.3", 13, "'1.2.3' is not a JSON number");
  ExpectParseError("result.a == 01", 13, "'01' is not a JSON number");
}

TEST(CacheIf, Parse_DeepNesting_RejectedNotCrashing) {
  EXPECT_THAT(CacheIf::Parse(std::string(10000, '(') + "true" + std::string(10000, ')')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("levels of '(' and '!'")));
  EXPECT_THAT(CacheIf::Parse(std::string(10000, '!') + "true"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("levels of '(' and '!'")));
  EXPECT_TRUE(Holds(std::string(10, '(') + "true" + std::string(10, ')'), "{}"));
}

TEST(CacheIf, Copy_EvaluatesLikeOriginal) {
  absl::StatusOr<CacheIf> parsed = CacheIf::Parse("result.a == 1 && !args.b");
  ASSERT_THAT(parsed, IsOk());
  const CacheIf copy = *parsed;
  parsed = CacheIf::Parse("false");
  EXPECT_TRUE(copy.Evaluate(*ParseJson(R"({"a":1})"), *ParseJson("{}")));
}

}  // namespace
}  // namespace taskboard::flow
