#include "tools/fake-llm/request_facts.h"

#include "gtest/gtest.h"

namespace taskboard::fake_llm {
namespace {

TEST(ReadRequestFacts, Conversation_ReadsEachPart) {
  const Json request = *ParseJson(R"({
    "model": "gpt-x",
    "messages": [
      {"role": "system", "content": "You are the planner."},
      {"role": "user", "content": "first question"},
      {"role": "assistant", "content": null,
       "tool_calls": [{"id": "call_1", "type": "function",
                       "function": {"name": "grep", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "3 matches"},
      {"role": "user", "content": "now summarize"}
    ]})");
  const RequestFacts facts = ReadRequestFacts(request);
  EXPECT_EQ(facts.model, "gpt-x");
  EXPECT_EQ(facts.system, "You are the planner.");
  EXPECT_EQ(facts.last_user, "now summarize");
  EXPECT_TRUE(facts.has_tool_results);
  EXPECT_EQ(facts.tool_results, "3 matches");
  EXPECT_EQ(facts.turn, 2);
  EXPECT_EQ(facts.all_content, "You are the planner.\nfirst question\n\n3 matches\nnow summarize");
  EXPECT_FALSE(facts.stream);
}

TEST(ReadRequestFacts, ContentParts_JoinTheirText) {
  const Json request = *ParseJson(R"({"messages": [{"role": "user", "content": [
      {"type": "text", "text": "look at "}, {"type": "image_url", "image_url": {"url": "x"}},
      {"type": "text", "text": "this"}]}]})");
  const RequestFacts facts = ReadRequestFacts(request);
  EXPECT_EQ(facts.last_user, "look at this");
  EXPECT_EQ(facts.turn, 1);
  EXPECT_FALSE(facts.has_tool_results);
}

TEST(ReadRequestFacts, StreamOptions_ReadsIncludeUsage) {
  const RequestFacts facts = ReadRequestFacts(
      *ParseJson(R"({"stream": true, "stream_options": {"include_usage": true}, "messages": []})"));
  EXPECT_TRUE(facts.stream);
  EXPECT_TRUE(facts.include_usage);
}

TEST(ReadRequestFacts, OddShapes_ReadAsEmpty) {
  const RequestFacts facts = ReadRequestFacts(*ParseJson(R"({"model": 3, "messages": [7, {}]})"));
  EXPECT_EQ(facts.model, "");
  EXPECT_EQ(facts.last_user, "");
  EXPECT_EQ(facts.turn, 1);
}

}  // namespace
}  // namespace taskboard::fake_llm
