#include "tools/fake-llm/script.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::fake_llm {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ParseScriptText, FullRules_ReadsEveryField) {
  absl::StatusOr<Script> script = ParseScriptText(R"(
rules:
  - name: plan
    match:
      model: gpt-x
      contains: goal
      last_user_contains: plan it
      system_contains: planner
      has_tool_results: false
      tool_result_contains: ok
      turn: 2
      times: 3
      after: 1
    respond:
      content: hello
      delay_ms: 50
      usage: {prompt_tokens: 7, completion_tokens: 9}
      chunk_chars: 3
  - respond:
      tool_calls:
        - name: grep
          arguments: {pattern: TODO}
        - name: raw
          arguments: 'not json'
  - respond:
      error: {status: 429, retry_after_seconds: 2}
  - respond: {malformed: true}
)");
  ASSERT_THAT(script, IsOk());
  ASSERT_EQ(script->rules.size(), 4u);
  const Rule& plan = script->rules[0];
  EXPECT_EQ(plan.name, "plan");
  EXPECT_EQ(plan.match.model, "gpt-x");
  EXPECT_EQ(plan.match.contains, "goal");
  EXPECT_EQ(plan.match.last_user_contains, "plan it");
  EXPECT_EQ(plan.match.system_contains, "planner");
  EXPECT_EQ(plan.match.has_tool_results, false);
  EXPECT_EQ(plan.match.tool_result_contains, "ok");
  EXPECT_EQ(plan.match.turn, 2);
  EXPECT_EQ(plan.match.times, 3);
  EXPECT_EQ(plan.match.after, 1);
  EXPECT_EQ(plan.respond.content, "hello");
  EXPECT_EQ(plan.respond.delay_ms, 50);
  EXPECT_EQ(plan.respond.prompt_tokens, 7);
  EXPECT_EQ(plan.respond.completion_tokens, 9);
  EXPECT_EQ(plan.respond.chunk_chars, 3);

  ASSERT_EQ(script->rules[1].respond.tool_calls.size(), 2u);
  EXPECT_EQ(script->rules[1].respond.tool_calls[0].name, "grep");
  EXPECT_EQ(script->rules[1].respond.tool_calls[0].arguments, R"({"pattern":"TODO"})");
  EXPECT_EQ(script->rules[1].respond.tool_calls[1].arguments, "not json");
  ASSERT_TRUE(script->rules[2].respond.error.has_value());
  EXPECT_EQ(script->rules[2].respond.error->status, 429);
  EXPECT_EQ(script->rules[2].respond.error->retry_after_seconds, 2);
  EXPECT_TRUE(script->rules[3].respond.malformed);
}

TEST(ParseScriptText, BareJsonList_ReadsRules) {
  absl::StatusOr<Script> script =
      ParseScriptText(R"([{"match": {"turn": 1}, "respond": {"content": "hi"}}])");
  ASSERT_THAT(script, IsOk());
  ASSERT_EQ(script->rules.size(), 1u);
  EXPECT_EQ(script->rules[0].respond.content, "hi");
}

TEST(ParseScriptText, NonTextContent_IsSerializedAsJsonText) {
  absl::StatusOr<Script> script = ParseScriptText(R"(
rules:
  - respond:
      content: {tasks: [{id: a, goal: read}]}
  - respond: {content: 42}
)");
  ASSERT_THAT(script, IsOk());
  EXPECT_EQ(script->rules[0].respond.content, R"({"tasks":[{"id":"a","goal":"read"}]})");
  EXPECT_EQ(script->rules[1].respond.content, "42");
  EXPECT_THAT(ParseScriptText("rules: [{respond: {content: null}}]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rules[0].respond.content: must be text")));
}

TEST(ParseScriptText, RawBody_KeepsTextOrJsonAndCannotBeCombined) {
  absl::StatusOr<Script> script = ParseScriptText(R"(
rules:
  - respond: {raw_body: {id: x}}
  - respond: {raw_body: not json at all}
)");
  ASSERT_THAT(script, IsOk());
  EXPECT_EQ(script->rules[0].respond.raw_body, (Json{{"id", "x"}}));
  EXPECT_EQ(script->rules[1].respond.raw_body, Json("not json at all"));
  EXPECT_THAT(ParseScriptText("rules: [{respond: {raw_body: x, content: y}}]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rules[0].respond: choose one of content/tool_calls")));
  EXPECT_THAT(ParseScriptText("rules: [{respond: {raw_body: null}}]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rules[0].respond.raw_body: must be text")));
}

TEST(ParseScriptText, MissingMatch_MatchesEverything) {
  absl::StatusOr<Script> script = ParseScriptText("rules: [{respond: {content: x}}]");
  ASSERT_THAT(script, IsOk());
  EXPECT_FALSE(script->rules[0].match.contains.has_value());
  EXPECT_FALSE(script->rules[0].match.times.has_value());
  EXPECT_EQ(script->rules[0].match.after, 0);
}

TEST(ParseScriptText, SeveralProblems_ReportsEveryOneWithItsPath) {
  absl::StatusOr<Script> script = ParseScriptText(R"(
rules:
  - match: {contans: x}
    respond: {content: a}
  - respond: {contnet: b}
  - respond: {content: c, error: {status: 429}}
  - respond: {error: {status: "429"}}
  - match: {turn: 0}
)");
  ASSERT_THAT(script, StatusIs(absl::StatusCode::kInvalidArgument));
  const std::string message(script.status().message());
  EXPECT_THAT(message, HasSubstr("rules[0].match: unknown key 'contans' (expected one of: model"));
  EXPECT_THAT(message, HasSubstr("rules[1].respond: unknown key 'contnet'"));
  EXPECT_THAT(message, HasSubstr("rules[1].respond: needs one of content, tool_calls, error"));
  EXPECT_THAT(message, HasSubstr("rules[2].respond: choose one of content/tool_calls, error"));
  EXPECT_THAT(
      message,
      HasSubstr(
          R"(rules[3].respond.error.status: must be an integer from 400 to 599 (got: "429"))"));
  EXPECT_THAT(message, HasSubstr("rules[4].match.turn: must be an integer from 1"));
  EXPECT_THAT(message, HasSubstr("rules[4]: missing 'respond'"));
}

TEST(ParseScriptText, BadToolCalls_NamesTheCall) {
  absl::StatusOr<Script> script = ParseScriptText(R"(
rules:
  - respond:
      tool_calls:
        - arguments: {a: 1}
        - name: x
          arguments: 5
)");
  ASSERT_THAT(script, StatusIs(absl::StatusCode::kInvalidArgument));
  const std::string message(script.status().message());
  EXPECT_THAT(message, HasSubstr("rules[0].respond.tool_calls[0]: missing 'name'"));
  EXPECT_THAT(message, HasSubstr("rules[0].respond.tool_calls[1].arguments: must be an object"));
}

TEST(ParseScriptText, NotAList_Fails) {
  EXPECT_THAT(ParseScriptText("rules: 3"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rules: must be a list")));
  EXPECT_THAT(ParseScriptText(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rules: must be a list")));
  EXPECT_THAT(
      ParseScriptText("{rulez: []}"),
      StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("script: unknown key 'rulez'"),
                                                         HasSubstr("script: missing 'rules'"))));
}

TEST(ParseScriptText, YamlSyntaxError_Fails) {
  EXPECT_THAT(ParseScriptText("rules: [{respond: "),
              StatusIs(absl::StatusCode::kInvalidArgument, Not(HasSubstr("rules["))));
}

}  // namespace
}  // namespace taskboard::fake_llm
