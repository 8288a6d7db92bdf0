#include "tools/fake-llm/chat_handler.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/fake-llm/request_log.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {
namespace {

using ::testing::HasSubstr;

class ChatHandlerTest : public ::testing::Test {
 protected:
  void Load(const std::string& yaml) {
    handler_ = std::make_unique<ChatHandler>(*ParseScriptText(yaml), log_.get(),
                                             [] { return int64_t{1700000000}; });
  }

  static std::string UserRequest(const std::string& text) {
    return DumpJson(Json{{"model", "gpt-x"},
                         {"messages", Json::array({Json{{"role", "user"}, {"content", text}}})}});
  }

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

}  // namespace
}  // namespace taskboard::fake_llm
