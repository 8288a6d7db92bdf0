// Token counts in a model server's answer (worker/agents/chat_json.h): a
// server that reports negative, absurd or int64-overflowing counts gets them
// held to what one call may bill (common/llm_call_usage.h), in whole answers
// and in streams alike, so a task's usage never shows a negative total.

#include <string>

#include "common/json.h"
#include "common/llm_call_usage.h"
#include "gtest/gtest.h"
#include "worker/agents/chat_json.h"
#include "worker/agents/chat_stream.h"

namespace taskboard::worker {
namespace {

std::string Answer(const Json& usage) {
  return DumpJson({{"model", "m"},
                   {"choices",
                    {{{"index", 0},
                      {"message", {{"role", "assistant"}, {"content", "hi"}}},
                      {"finish_reason", "stop"}}}},
                   {"usage", usage}});
}

TEST(ChatUsage, NegativeCounts_AreZero) {
  absl::StatusOr<ChatResponse> response =
      ParseChatResponse(Answer({{"prompt_tokens", -1'000'000'000},
                                {"completion_tokens", -5},
                                {"prompt_tokens_details", {{"cached_tokens", -3}}}}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->prompt_tokens, 0);
  EXPECT_EQ(response->completion_tokens, 0);
  EXPECT_EQ(response->cached_tokens, 0);
}

TEST(ChatUsage, HugeAndInt64OverflowingCounts_HeldToTheLimitOfOneCall) {
  absl::StatusOr<ChatResponse> response =
      ParseChatResponse(Answer({{"prompt_tokens", uint64_t{18'446'744'073'709'551'615u}},
                                {"completion_tokens", int64_t{9'223'372'036'854'775'807}},
                                {"prompt_tokens_details", {{"cached_tokens", 500'000'000}}}}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->prompt_tokens, kMaxCallTokens);
  EXPECT_EQ(response->completion_tokens, kMaxCallTokens);
  EXPECT_EQ(response->cached_tokens, kMaxCallTokens) << "at most the prompt";
}

TEST(ChatUsage, CachedTokensOverThePrompt_AreThePrompt) {
  absl::StatusOr<ChatResponse> response =
      ParseChatResponse(Answer({{"prompt_tokens", 100},
                                {"completion_tokens", 5},
                                {"prompt_tokens_details", {{"cached_tokens", 1'000}}}}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->prompt_tokens, 100);
  EXPECT_EQ(response->cached_tokens, 100);
}

TEST(ChatUsage, NormalCounts_Unchanged) {
  absl::StatusOr<ChatResponse> response =
      ParseChatResponse(Answer({{"prompt_tokens", 120},
                                {"completion_tokens", 12},
                                {"prompt_tokens_details", {{"cached_tokens", 64}}}}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->prompt_tokens, 120);
  EXPECT_EQ(response->completion_tokens, 12);
  EXPECT_EQ(response->cached_tokens, 64);
}

TEST(ChatUsage, StreamedNegativeCounts_AreZero) {
  ChatStreamAssembler stream([](absl::string_view) {});
  stream.Feed(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}"
      "\n\n");
  stream.Feed(
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-7,\"completion_tokens\":-4}}\n\n"
      "data: [DONE]\n\n");
  absl::StatusOr<ChatResponse> response = stream.Finish();
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->message.content(), "hi");
  EXPECT_EQ(response->prompt_tokens, 0);
  EXPECT_EQ(response->completion_tokens, 0);
}

}  // namespace
}  // namespace taskboard::worker
