#include "tools/fake-llm/completion_renderer.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

ResponseSpec Respond(const std::string& yaml) {
  return ParseScriptText("rules: [{respond: " + yaml + "}]")->rules[0].respond;
}

CompletionContext Context() {
  CompletionContext context;
  context.id = "chatcmpl-fake-7";
  context.created = 1700000000;
  context.model = "gpt-x";
  context.first_tool_call_number = 3;
  context.prompt_chars = 40;
  return context;
}

// Concatenates what a streaming client would assemble from the deltas.
std::string StreamedContent(const std::vector<Json>& chunks) {
  std::string content;
  for (const Json& chunk : chunks) {
    if (chunk["choices"].empty()) continue;
    const Json& delta = chunk["choices"][0]["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
  }
  return content;
}

TEST(RenderCompletion, Content_HasOpenAiShape) {
  const Json completion = RenderCompletion(Respond("{content: hello there}"), Context());
  EXPECT_EQ(completion, *ParseJson(R"({
    "id": "chatcmpl-fake-7", "object": "chat.completion", "created": 1700000000, "model": "gpt-x",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello there"},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})"));
}

TEST(RenderCompletion, JsonContent_IsAStringHoldingTheJson) {
  const Json completion =
      RenderCompletion(Respond("{content: {summary: done, success: true}}"), Context());
  EXPECT_EQ(completion["choices"][0]["message"]["content"], R"({"summary":"done","success":true})");
}

TEST(RenderCompletion, ToolCalls_NumberedFromContextWithToolCallsFinish) {
  const Json completion = RenderCompletion(
      Respond("{tool_calls: [{name: grep, arguments: {q: x}}, {name: ls}]}"), Context());
  const Json& choice = completion["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  EXPECT_EQ(choice["message"]["tool_calls"], *ParseJson(R"([
    {"id": "call_3", "type": "function", "function": {"name": "grep", "arguments": "{\"q\":\"x\"}"}},
    {"id": "call_4", "type": "function", "function": {"name": "ls", "arguments": "{}"}}])"));
}

TEST(RenderUsage, ScriptedCounts_OverrideTheEstimate) {
  EXPECT_EQ(RenderUsage(Respond("{content: abcdefgh, usage: {prompt_tokens: 100}}"), Context()),
            *ParseJson(R"({"prompt_tokens": 100, "completion_tokens": 2, "total_tokens": 102})"));
  EXPECT_EQ(RenderUsage(Respond("{content: a, usage: {completion_tokens: 5}}"), Context()),
            *ParseJson(R"({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})"));
}

TEST(ReportedTokens, Completion_IsTheUsageTotal) {
  // The same numbers the reply's usage shows: 40 / 4 prompt + 8 / 4 completion.
  EXPECT_EQ(ReportedTokens(Respond("{content: abcdefgh}"), 40), 12);
  EXPECT_EQ(ReportedTokens(
                Respond("{content: a, usage: {prompt_tokens: 100, completion_tokens: 7}}"), 40),
            107);
}

TEST(ReportedTokens, ErrorMalformedOrRawBody_ReportNone) {
  EXPECT_EQ(ReportedTokens(Respond("{error: {status: 500}}"), 40), 0);
  EXPECT_EQ(ReportedTokens(Respond("{malformed: true}"), 40), 0);
  EXPECT_EQ(ReportedTokens(Respond("{raw_body: {id: x}}"), 40), 0);
}

TEST(RenderChunks, Content_SplitsIntoPiecesThenFinishes) {
  const std::vector<Json> chunks =
      RenderChunks(Respond("{content: abcdefg, chunk_chars: 3}"), Context(), false);
  ASSERT_EQ(chunks.size(), 5u);
  EXPECT_EQ(chunks[0]["object"], "chat.completion.chunk");
  EXPECT_EQ(chunks[0]["choices"][0]["delta"], *ParseJson(R"({"role":"assistant","content":""})"));
  EXPECT_EQ(chunks[1]["choices"][0]["delta"]["content"], "abc");
  EXPECT_EQ(chunks[3]["choices"][0]["delta"]["content"], "g");
  EXPECT_TRUE(chunks[3]["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(chunks[4]["choices"][0]["delta"], Json::object());
  EXPECT_EQ(chunks[4]["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(StreamedContent(chunks), "abcdefg");
}

TEST(RenderChunks, MultibyteText_NeverSplitsACharacter) {
  const std::vector<Json> chunks = RenderChunks(
      Respond("{content: \"h\u00e9llo \u4e16\u754c\", chunk_chars: 2}"), Context(), false);
  for (const Json& chunk : chunks) {
    // DumpJson would replace a broken sequence; the pieces must survive as is.
    if (chunk["choices"][0]["delta"].contains("content")) {
      const std::string piece = chunk["choices"][0]["delta"]["content"];
      EXPECT_FALSE(absl::StrContains(piece, "\xEF\xBF\xBD")) << piece;
    }
  }
  EXPECT_EQ(StreamedContent(chunks), "h\u00e9llo \u4e16\u754c");
  EXPECT_EQ(chunks[4]["choices"][0]["delta"]["content"], "\u4e16\u754c");
}

TEST(RenderChunks, ToolCalls_StreamInOpenAiDeltaForm) {
  const std::vector<Json> chunks = RenderChunks(
      Respond("{tool_calls: [{name: grep, arguments: {q: x}}], chunk_chars: 4}"), Context(), false);
  // role, opening, 3 argument pieces of {"q":"x"}, finish.
  ASSERT_EQ(chunks.size(), 6u);
  EXPECT_EQ(chunks[1]["choices"][0]["delta"], *ParseJson(R"({"tool_calls": [{"index": 0,
      "id": "call_3", "type": "function", "function": {"name": "grep", "arguments": ""}}]})"));
  std::string arguments;
  for (size_t i = 2; i < 5; ++i) {
    const Json& call = chunks[i]["choices"][0]["delta"]["tool_calls"][0];
    EXPECT_EQ(call["index"], 0);
    EXPECT_FALSE(call.contains("id"));
    arguments += call["function"]["arguments"].get<std::string>();
  }
  EXPECT_EQ(arguments, R"({"q":"x"})");
  EXPECT_EQ(chunks[5]["choices"][0]["finish_reason"], "tool_calls");
}

TEST(RenderChunks, IncludeUsage_EndsWithAUsageOnlyChunk) {
  const std::vector<Json> chunks = RenderChunks(Respond("{content: abcd}"), Context(), true);
  EXPECT_EQ(chunks.back()["choices"], Json::array());
  EXPECT_EQ(chunks.back()["usage"]["completion_tokens"], 1);
}

TEST(RenderReply, Stream_FramesEachChunkAndEndsWithDone) {
  const HttpReply reply = RenderReply(Respond("{content: hi}"), Context(), true, false);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "text/event-stream");
  EXPECT_TRUE(reply.body.empty());
  ASSERT_EQ(reply.events.size(), 4u);
  for (const std::string& event : reply.events) {
    EXPECT_TRUE(absl::StartsWith(event, "data: ")) << event;
    EXPECT_TRUE(absl::EndsWith(event, "\n\n")) << event;
  }
  EXPECT_EQ(reply.events.back(), "data: [DONE]\n\n");
}

TEST(RenderReply, NotStreamed_BodyIsTheCompletion) {
  const HttpReply reply = RenderReply(Respond("{content: hi}"), Context(), false, true);
  EXPECT_TRUE(reply.events.empty());
  EXPECT_EQ(*ParseJson(reply.body), RenderCompletion(Respond("{content: hi}"), Context()));
}

TEST(RenderReply, RateLimit_SendsRetryAfterAndOpenAiError) {
  const HttpReply reply = RenderReply(Respond("{error: {status: 429, retry_after_seconds: 3}}"),
                                      Context(), true, false);
  EXPECT_EQ(reply.status, 429);
  EXPECT_THAT(reply.headers, ElementsAre(Pair("Retry-After", "3")));
  EXPECT_TRUE(reply.events.empty());
  const Json body = *ParseJson(reply.body);
  EXPECT_EQ(body["error"]["type"], "rate_limit_exceeded");
  EXPECT_EQ(body["error"]["code"], "rate_limit_exceeded");
}

TEST(RenderReply, ScriptedErrorBody_IsSentAsIs) {
  const HttpReply text =
      RenderReply(Respond("{error: {status: 503, body: busy}}"), Context(), false, false);
  EXPECT_EQ(text.status, 503);
  EXPECT_EQ(text.body, "busy");
  EXPECT_EQ(text.content_type, "text/plain");
  const HttpReply json =
      RenderReply(Respond("{error: {status: 500, body: {detail: x}}}"), Context(), false, false);
  EXPECT_EQ(json.body, R"({"detail":"x"})");
  EXPECT_TRUE(json.headers.empty());
}

TEST(RenderReply, Malformed_IsNotJsonInEitherMode) {
  const HttpReply plain = RenderReply(Respond("{malformed: true}"), Context(), false, false);
  EXPECT_EQ(plain.status, 200);
  EXPECT_FALSE(ParseJson(plain.body).ok());
  const HttpReply streamed = RenderReply(Respond("{malformed: true}"), Context(), true, false);
  ASSERT_EQ(streamed.events.size(), 2u);
  EXPECT_FALSE(ParseJson(streamed.events[0].substr(6)).ok());
}

TEST(RenderReply, RawBody_IsAPlainJson200InEitherMode) {
  const HttpReply json = RenderReply(Respond("{raw_body: {id: x}}"), Context(), true, true);
  EXPECT_EQ(json.status, 200);
  EXPECT_EQ(json.content_type, "application/json");
  EXPECT_TRUE(json.events.empty());
  EXPECT_EQ(json.body, R"({"id":"x"})");
  const HttpReply text = RenderReply(Respond("{raw_body: 'oops <html>'}"), Context(), false, false);
  EXPECT_EQ(text.status, 200);
  EXPECT_EQ(text.body, "oops <html>");
}

TEST(RenderError, Always_HasOpenAiErrorShape) {
  const HttpReply reply = RenderError(400, "bad", "invalid_request_error", "", "messages");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(*ParseJson(reply.body), *ParseJson(R"({"error": {"message": "bad",
      "type": "invalid_request_error", "param": "messages", "code": null}})"));
}

}  // namespace
}  // namespace taskboard::fake_llm
