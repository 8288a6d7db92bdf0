#include "tools/fake-llm/rule_book.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {
namespace {

RequestFacts Facts() {
  RequestFacts facts;
  facts.model = "gpt-x";
  facts.all_content = "You plan.\nfind TODOs\n2 matches";
  facts.system = "You plan.";
  facts.last_user = "find TODOs";
  facts.tool_results = "2 matches";
  facts.has_tool_results = true;
  facts.turn = 2;
  return facts;
}

Script ScriptOf(const std::string& yaml) { return *ParseScriptText(yaml); }

TEST(ConditionsHold, EmptyMatch_Holds) { EXPECT_TRUE(ConditionsHold(MatchSpec{}, Facts())); }

TEST(ConditionsHold, EachCondition_HoldsOnlyForItsValue) {
  struct Case {
    MatchSpec holds;
    MatchSpec fails;
  };
  MatchSpec model_ok, model_bad, contains_ok, contains_bad, user_ok, user_bad, system_ok,
      system_bad, tools_ok, tools_bad, result_ok, result_bad, turn_ok, turn_bad;
  model_ok.model = "gpt-x";
  model_bad.model = "gpt";
  contains_ok.contains = "TODOs\n2";
  contains_bad.contains = "FIXME";
  user_ok.last_user_contains = "TODO";
  user_bad.last_user_contains = "You plan";
  system_ok.system_contains = "plan";
  system_bad.system_contains = "TODO";
  tools_ok.has_tool_results = true;
  tools_bad.has_tool_results = false;
  result_ok.tool_result_contains = "2 matches";
  result_bad.tool_result_contains = "TODO";
  turn_ok.turn = 2;
  turn_bad.turn = 1;
  for (const Case& c :
       {Case{model_ok, model_bad}, Case{contains_ok, contains_bad}, Case{user_ok, user_bad},
        Case{system_ok, system_bad}, Case{tools_ok, tools_bad}, Case{result_ok, result_bad},
        Case{turn_ok, turn_bad}}) {
    EXPECT_TRUE(ConditionsHold(c.holds, Facts()));
    EXPECT_FALSE(ConditionsHold(c.fails, Facts()));
  }
}

TEST(ConditionsHold, SeveralConditions_AllMustHold) {
  MatchSpec match;
  match.model = "gpt-x";
  match.turn = 1;
  EXPECT_FALSE(ConditionsHold(match, Facts()));
}

TEST(RuleBook, SeveralMatch_FirstWins) {
  RuleBook book(ScriptOf(R"(
rules:
  - match: {contains: FIXME}
    respond: {content: a}
  - match: {contains: TODO}
    respond: {content: b}
  - respond: {content: c}
)"));
  EXPECT_EQ(book.Select(Facts()), 1u);
  EXPECT_EQ(book.Select(Facts()), 1u);
}

TEST(RuleBook, Times_ExhaustsThenFallsThrough) {
  RuleBook book(ScriptOf(R"(
rules:
  - match: {times: 2}
    respond: {error: {status: 429}}
  - respond: {content: ok}
)"));
  EXPECT_EQ(book.Select(Facts()), 0u);
  EXPECT_EQ(book.Select(Facts()), 0u);
  EXPECT_EQ(book.Select(Facts()), 1u);
  EXPECT_EQ(book.Select(Facts()), 1u);
}

TEST(RuleBook, After_SkipsTheFirstMatches) {
  RuleBook book(ScriptOf(R"(
rules:
  - match: {after: 2, times: 1}
    respond: {content: third}
  - respond: {content: other}
)"));
  EXPECT_EQ(book.Select(Facts()), 1u);
  EXPECT_EQ(book.Select(Facts()), 1u);
  EXPECT_EQ(book.Select(Facts()), 0u);
  EXPECT_EQ(book.Select(Facts()), 1u);
}

TEST(RuleBook, NothingMatches_ReturnsNullopt) {
  RuleBook book(ScriptOf("rules: [{match: {model: other}, respond: {content: a}}]"));
  EXPECT_EQ(book.Select(Facts()), std::nullopt);
}

}  // namespace
}  // namespace taskboard::fake_llm
