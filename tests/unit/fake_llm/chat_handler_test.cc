#include "tools/fake-llm/chat_handler.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/fake-llm/request_log.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {
namespace {

using ::testing::HasSubstr;

class ChatHandlerTest : public ::testing::Test {
 protected:
  void Load(const std::string& yaml, const RateLimitOptions& limits = {}) {
    handler_ = std::make_unique<ChatHandler>(
        *ParseScriptText(yaml), log_.get(), [this] { return now_; }, limits);
  }

  static RateLimitOptions Limits(double rpm, double tpm) {
    RateLimitOptions limits;
    limits.requests_per_minute = rpm;
    limits.tokens_per_minute = tpm;
    return limits;
  }

  static std::string HeaderOf(const HttpReply& reply, const std::string& name) {
    for (const auto& [key, value] : reply.headers) {
      if (key == name) return value;
    }
    return "";
  }

  static std::string UserRequest(const std::string& text) {
    return DumpJson(Json{{"model", "gpt-x"},
                         {"messages", Json::array({Json{{"role", "user"}, {"content", text}}})}});
  }

  // The handler's clock: tests move it to refill the rate limits.
  absl::Time now_ = absl::FromUnixSeconds(1700000000);
  std::unique_ptr<RequestLog> log_ = *RequestLog::Open("");
  std::unique_ptr<ChatHandler> handler_;
};

TEST_F(ChatHandlerTest, NoMessages_Returns400NamingTheParam) {
  Load("rules: [{respond: {content: a}}]");
  const ChatAnswer answer = handler_->Handle("/v1/chat/completions", R"({"model": "m"})");
  EXPECT_EQ(answer.reply.status, 400);
  const Json body = *ParseJson(answer.reply.body);
  EXPECT_EQ(body["error"]["param"], "messages");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
}

TEST_F(ChatHandlerTest, BodyNotJson_Returns400AndLogsTheText) {
  Load("rules: [{respond: {content: a}}]");
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", "{oops").reply.status, 400);
  EXPECT_EQ(log_->Entries()[0]["request_text"], "{oops");
}

TEST_F(ChatHandlerTest, NoRuleMatches_Returns500QuotingTheLastUserMessage) {
  Load("rules: [{match: {contains: never}, respond: {content: a}}]");
  const ChatAnswer answer = handler_->Handle("/v1/chat/completions", UserRequest("plan a trip"));
  EXPECT_EQ(answer.reply.status, 500);
  const Json body = *ParseJson(answer.reply.body);
  EXPECT_THAT(body["error"]["message"].get<std::string>(),
              HasSubstr(R"(no rule matched the request (last user message: "plan a trip"))"));
  EXPECT_EQ(body["error"]["code"], "no_rule_matched");
  EXPECT_TRUE(log_->Entries()[0]["rule"].is_null());
}

TEST_F(ChatHandlerTest, RuleAnswers_RepliesAndLogsRequestWithRule) {
  Load(R"(
rules:
  - match: {contains: never}
    respond: {content: a}
  - name: greeter
    respond: {content: hello, delay_ms: 25}
)");
  const ChatAnswer answer = handler_->Handle("/chat/completions", UserRequest("hi"));
  EXPECT_EQ(answer.reply.status, 200);
  EXPECT_EQ(answer.delay_ms, 25);
  const Json completion = *ParseJson(answer.reply.body);
  EXPECT_EQ(completion["id"], "chatcmpl-fake-1");
  EXPECT_EQ(completion["created"], 1700000000);
  EXPECT_EQ(completion["model"], "gpt-x");
  EXPECT_EQ(completion["choices"][0]["message"]["content"], "hello");

  const Json entries = log_->Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["seq"], 1);
  EXPECT_EQ(entries[0]["path"], "/chat/completions");
  EXPECT_EQ(entries[0]["rule"], 1);
  EXPECT_EQ(entries[0]["rule_name"], "greeter");
  EXPECT_EQ(entries[0]["status"], 200);
  EXPECT_EQ(entries[0]["request"], *ParseJson(UserRequest("hi")));
}

TEST_F(ChatHandlerTest, ToolCallIds_KeepCountingAcrossRequests) {
  Load("rules: [{respond: {tool_calls: [{name: a}, {name: b}]}}]");
  handler_->Handle("/v1/chat/completions", UserRequest("x"));
  const Json second =
      *ParseJson(handler_->Handle("/v1/chat/completions", UserRequest("x")).reply.body);
  EXPECT_EQ(second["choices"][0]["message"]["tool_calls"][0]["id"], "call_3");
  EXPECT_EQ(second["choices"][0]["message"]["tool_calls"][1]["id"], "call_4");
}

TEST_F(ChatHandlerTest, StreamRequested_RepliesWithEvents) {
  Load("rules: [{respond: {content: hi}}]");
  const ChatAnswer answer =
      handler_->Handle("/v1/chat/completions",
                       R"({"stream": true, "messages": [{"role": "user", "content": "x"}]})");
  EXPECT_EQ(answer.reply.content_type, "text/event-stream");
  EXPECT_EQ(answer.reply.events.back(), "data: [DONE]\n\n");
}

TEST_F(ChatHandlerTest, RequestLimit_BurstGetsFirstAnswersThen429NamingRequests) {
  Load("rules: [{respond: {content: hi}}]", Limits(60, 0));
  // At 60 per minute the bucket holds one second: one request, plus the one
  // that empties it to its edge.
  for (int i = 0; i < 2; ++i) {
    const ChatAnswer answer = handler_->Handle("/v1/chat/completions", UserRequest("x"));
    EXPECT_EQ(answer.reply.status, 200) << i;
    EXPECT_EQ(HeaderOf(answer.reply, "x-ratelimit-limit-requests"), "60");
    EXPECT_EQ(HeaderOf(answer.reply, "x-ratelimit-limit-tokens"), "");
  }
  const ChatAnswer refused = handler_->Handle("/v1/chat/completions", UserRequest("x"));
  EXPECT_EQ(refused.reply.status, 429);
  EXPECT_EQ(HeaderOf(refused.reply, "Retry-After"), "1");
  EXPECT_EQ(HeaderOf(refused.reply, "x-ratelimit-limit-requests"), "60");
  const Json error = (*ParseJson(refused.reply.body))["error"];
  EXPECT_EQ(error["message"],
            "Rate limit reached for requests per minute (limit 60): retry after 1 s");
  EXPECT_EQ(error["type"], "requests");
  EXPECT_EQ(error["code"], "rate_limit_exceeded");

  now_ += absl::Seconds(1);
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", UserRequest("x")).reply.status, 200);
}

TEST_F(ChatHandlerTest, TokenLimit_RefusesOnceTheAnswersUsageEmptiedTheBucket) {
  // 600 per minute: the bucket holds 10 tokens; each answer reports 60.
  Load("rules: [{respond: {content: hi, usage: {prompt_tokens: 50, completion_tokens: 10}}}]",
       Limits(0, 600));
  const ChatAnswer first = handler_->Handle("/v1/chat/completions", UserRequest("x"));
  EXPECT_EQ(first.reply.status, 200);
  EXPECT_EQ(HeaderOf(first.reply, "x-ratelimit-limit-tokens"), "600");
  const ChatAnswer refused = handler_->Handle("/v1/chat/completions", UserRequest("x"));
  EXPECT_EQ(refused.reply.status, 429);
  // 60 tokens are 6 s of the limit, 5 s beyond what the bucket holds.
  EXPECT_EQ(HeaderOf(refused.reply, "Retry-After"), "5");
  const Json error = (*ParseJson(refused.reply.body))["error"];
  EXPECT_EQ(error["message"],
            "Rate limit reached for tokens per minute (limit 600): retry after 5 s");
  EXPECT_EQ(error["type"], "tokens");

  now_ += absl::Seconds(5);
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", UserRequest("x")).reply.status, 200);
}

TEST_F(ChatHandlerTest, TokenLimit_ChargesTheDefaultEstimateWithoutScriptedUsage) {
  // 40 characters of prompt and 4 of answer: 10 + 1 tokens, 11 s at 60 per
  // minute, 10 s beyond the one-token bucket.
  Load("rules: [{respond: {content: abcd}}]", Limits(0, 60));
  EXPECT_EQ(
      handler_->Handle("/v1/chat/completions", UserRequest(std::string(40, 'q'))).reply.status,
      200);
  const ChatAnswer refused = handler_->Handle("/v1/chat/completions", UserRequest("x"));
  EXPECT_EQ(refused.reply.status, 429);
  EXPECT_EQ(HeaderOf(refused.reply, "Retry-After"), "10");
}

TEST_F(ChatHandlerTest, RefusedRequest_DoesNotUseARuleAndIsLogged) {
  Load(R"(
rules:
  - name: once
    match: {contains: special, times: 1}
    respond: {content: the one answer}
  - name: rest
    respond: {content: later}
)",
       Limits(60, 0));
  handler_->Handle("/v1/chat/completions", UserRequest("hello"));
  handler_->Handle("/v1/chat/completions", UserRequest("hello"));
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", UserRequest("special")).reply.status, 429);

  now_ += absl::Seconds(1);
  const ChatAnswer admitted = handler_->Handle("/v1/chat/completions", UserRequest("special"));
  EXPECT_EQ((*ParseJson(admitted.reply.body))["choices"][0]["message"]["content"],
            "the one answer");

  const Json entries = log_->Entries();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[2]["status"], 429);
  EXPECT_EQ(entries[2]["rule_name"], "rate-limit");
  EXPECT_TRUE(entries[2]["rule"].is_null());
  EXPECT_EQ(entries[2]["request"], *ParseJson(UserRequest("special")));
  EXPECT_EQ(entries[3]["rule_name"], "once");
}

TEST_F(ChatHandlerTest, Stats_CountRequestsAdmittedAndRateLimited) {
  Load("rules: [{respond: {content: hi}}]", Limits(60, 0));
  EXPECT_EQ(handler_->Stats(), *ParseJson(R"({"requests": 0, "admitted": 0, "rate_limited": 0})"));
  handler_->Handle("/v1/chat/completions", UserRequest("x"));
  // A malformed request counts against the limit too, like at a provider.
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", "{oops").reply.status, 400);
  EXPECT_EQ(handler_->Handle("/v1/chat/completions", "{oops").reply.status, 429);
  handler_->Handle("/v1/chat/completions", UserRequest("x"));
  EXPECT_EQ(handler_->Stats(), *ParseJson(R"({"requests": 4, "admitted": 2, "rate_limited": 2})"));
}

TEST_F(ChatHandlerTest, ConcurrentRequests_AdmitExactlyWhatTheBucketHolds) {
  Load("rules: [{respond: {content: hi}}]", Limits(600, 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([this] {
      for (int i = 0; i < 25; ++i) handler_->Handle("/v1/chat/completions", UserRequest("x"));
    });
  }
  for (std::thread& thread : threads) thread.join();
  // 10 per second held plus the one at the edge, however the threads raced.
  EXPECT_EQ(handler_->Stats(),
            *ParseJson(R"({"requests": 200, "admitted": 11, "rate_limited": 189})"));
}

TEST_F(ChatHandlerTest, NoLimits_SendNoRateLimitHeaders) {
  Load("rules: [{respond: {content: hi}}]");
  for (int i = 0; i < 50; ++i) {
    const ChatAnswer answer = handler_->Handle("/v1/chat/completions", UserRequest("x"));
    ASSERT_EQ(answer.reply.status, 200);
    EXPECT_TRUE(answer.reply.headers.empty());
  }
}

}  // namespace
}  // namespace taskboard::fake_llm
