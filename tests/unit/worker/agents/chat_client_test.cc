// The chat-completions client against a real HTTP server in this process.

#include "worker/agents/chat_client.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/agents/scripted_llm_server.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::worker::testing::ErrorReply;
using ::taskboard::worker::testing::ScriptedLlmServer;
using ::taskboard::worker::testing::ScriptedReply;
using ::taskboard::worker::testing::TextReply;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

ChatClientOptions FastOptions(const std::string& base_url) {
  ChatClientOptions options;
  options.base_url = base_url;
  options.request_timeout = absl::Seconds(10);
  options.max_attempts = 3;
  options.backoff = {absl::Milliseconds(1), absl::Milliseconds(5)};
  return options;
}

ChatRequest Hello() {
  ChatRequest request;
  request.model = "test-model";
  v1::ChatMessage& user = request.messages.emplace_back();
  user.set_role("user");
  user.set_content("hello");
  return request;
}

TEST(ChatClient, PlainCompletion_ReturnsMessageAndUsage) {
  ScriptedLlmServer server({TextReply("hi there", 12, 3)});
  ChatClientOptions options = FastOptions(server.base_url());
  options.api_key = "sk-test";
  absl::StatusOr<ChatResponse> response = ChatClient(options).Complete(Hello(), nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->message.role(), "assistant");
  EXPECT_EQ(response->message.content(), "hi there");
  EXPECT_EQ(response->finish_reason, "stop");
  EXPECT_EQ(response->prompt_tokens, 12);
  EXPECT_EQ(response->completion_tokens, 3);
  ASSERT_EQ(server.requests().size(), 1u);
  const Json sent = server.requests()[0];
  EXPECT_EQ(sent["model"], "test-model");
  EXPECT_EQ(sent["messages"][0]["content"], "hello");
  EXPECT_FALSE(sent.contains("stream"));
  EXPECT_EQ(server.authorizations()[0], "Bearer sk-test");
}

TEST(ChatClient, ToolsAndSchema_AreSentInOpenAiShape) {
  ScriptedLlmServer server({TextReply("{}")});
  ChatRequest request = Hello();
  v1::ToolDeclaration& tool = request.tools.emplace_back();
  tool.set_name("read_file");
  tool.set_description("Reads a file");
  tool.set_parameters_schema_json(R"({"type":"object","properties":{"path":{"type":"string"}}})");
  request.response_schema_json = R"({"type":"object"})";
  request.temperature = 0.5;
  ASSERT_THAT(ChatClient(FastOptions(server.base_url())).Complete(request, nullptr), IsOk());
  const Json sent = server.requests()[0];
  EXPECT_EQ(sent["tools"][0]["type"], "function");
  EXPECT_EQ(sent["tools"][0]["function"]["name"], "read_file");
  EXPECT_EQ(sent["tools"][0]["function"]["parameters"]["properties"]["path"]["type"], "string");
  EXPECT_EQ(sent["response_format"]["type"], "json_schema");
  EXPECT_EQ(sent["response_format"]["json_schema"]["schema"]["type"], "object");
  EXPECT_EQ(sent["temperature"], 0.5);
}

TEST(ChatClient, TooManyRequestsWithRetryAfter_WaitsThenSucceeds) {
  ScriptedReply limited = ErrorReply(429, "slow down");
  limited.headers = {{"Retry-After", "1"}};
  ScriptedLlmServer server({limited, TextReply("done")});
  const absl::Time start = absl::Now();
  absl::StatusOr<ChatResponse> response =
      ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->message.content(), "done");
  EXPECT_EQ(server.requests().size(), 2u);
  // The backoff alone is a few milliseconds: the wait came from Retry-After.
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(950));
}

TEST(ChatClient, ServerErrorEveryTime_FailsAfterMaxAttempts) {
  ScriptedLlmServer server({ErrorReply(500, "model crashed")});
  absl::StatusOr<ChatResponse> response =
      ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr);
  EXPECT_THAT(response,
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(StartsWith("POST " + server.base_url() + "/chat/completions: "),
                             HasSubstr("HTTP 500 after 3 attempts: model crashed"),
                             HasSubstr("try again later"))));
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(ChatClient, ServerErrorThenSuccess_Retries) {
  ScriptedLlmServer server({ErrorReply(503, "busy"), TextReply("ok")});
  absl::StatusOr<ChatResponse> response =
      ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->message.content(), "ok");
}

TEST(ChatClient, BadRequest_FailsWithoutRetrying) {
  ScriptedLlmServer server({ErrorReply(400, "unknown model 'x'")});
  EXPECT_THAT(ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("HTTP 400: unknown model")));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ChatClient, Unauthorized_SaysToCheckTheKey) {
  ScriptedLlmServer server({ErrorReply(401, "invalid key")});
  EXPECT_THAT(ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("check the API key")));
}

TEST(ChatClient, MalformedJson_FailsNamingTheEndpoint) {
  ScriptedLlmServer server({ScriptedReply{.body = "{\"choices\": [oops"}});
  EXPECT_THAT(ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(StartsWith("POST " + server.base_url() + "/chat/completions: "),
                             HasSubstr("not valid JSON"), HasSubstr("OpenAI-compatible"))));
}

TEST(ChatClient, JsonWithoutChoices_Fails) {
  ScriptedLlmServer server({ScriptedReply{.body = "{\"object\": \"list\"}"}});
  EXPECT_THAT(ChatClient(FastOptions(server.base_url())).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("no `choices`")));
}

// A server that answers with more than maxResponseBytes (here a 4 MiB body
// against a 1 MiB limit) is cut off, not buffered, and not asked again.
TEST(ChatClient, AnswerOverMaxResponseBytes_CutOffNotRetried) {
  ScriptedLlmServer server({TextReply(std::string(4 << 20, 'x'))});
  ChatClientOptions options = FastOptions(server.base_url());
  options.max_response_bytes = 1 << 20;
  EXPECT_THAT(ChatClient(options).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("the response passed 1048576 bytes and was cut off"),
                             HasSubstr("maxResponseBytes"))));
  EXPECT_EQ(server.requests().size(), 1u);
}

// The same bound holds for a streamed answer: one endless line of SSE.
TEST(ChatClient, StreamedAnswerOverMaxResponseBytes_CutOff) {
  ScriptedReply stream;
  const std::string delta = absl::StrCat(R"({"choices":[{"index":0,"delta":{"content":")",
                                         std::string(64 << 10, 'y'), R"("}}]})");
  stream.sse_chunks.assign(64, delta);  // 4 MiB in all
  ScriptedLlmServer server({stream});
  ChatClientOptions options = FastOptions(server.base_url());
  options.max_response_bytes = 1 << 20;
  ChatRequest request = Hello();
  request.stream = true;
  size_t forwarded = 0;
  EXPECT_THAT(ChatClient(options).Complete(request, nullptr,
                                           [&](absl::string_view d) { forwarded += d.size(); }),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("cut off")));
  EXPECT_LE(forwarded, size_t{1} << 20);
}

TEST(ChatClient, NoServer_SaysConnectionRefused) {
  int port = 0;
  {
    // A port that was just free: nothing listens there any more.
    ScriptedLlmServer gone({TextReply("x")});
    port = gone.port();
  }
  const std::string base_url = absl::StrCat("http://127.0.0.1:", port, "/v1");
  EXPECT_THAT(ChatClient(FastOptions(base_url)).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(StartsWith("POST " + base_url + "/chat/completions: "),
                             HasSubstr("connection refused"),
                             HasSubstr("set base_url or OPENAI_BASE_URL"))));
}

TEST(ChatClient, SlowServer_TimesOut) {
  ScriptedLlmServer server({ScriptedReply{.hang = true}});
  ChatClientOptions options = FastOptions(server.base_url());
  options.request_timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  EXPECT_THAT(ChatClient(options).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       AllOf(HasSubstr("no complete response within 300ms"),
                             HasSubstr("raise requestTimeoutSeconds"))));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(server.requests().size(), 1u);  // timeouts are not retried
}

TEST(ChatClient, SlowServerPastTheDeadline_TimesOutInWholeMillisecondsWithoutRequestHint) {
  ScriptedLlmServer server({ScriptedReply{.hang = true}});
  // The request's own 10 s limit is not what stops it: the deadline is.
  absl::StatusOr<ChatResponse> response =
      ChatClient(FastOptions(server.base_url()))
          .Complete(Hello(), nullptr, nullptr, absl::Now() + absl::Milliseconds(300));
  EXPECT_THAT(response, StatusIs(absl::StatusCode::kDeadlineExceeded,
                                 AllOf(ContainsRegex("no complete response within [0-9]+ms$"),
                                       Not(HasSubstr("requestTimeoutSeconds")))));
}

TEST(ChatClient, CancelledMidRequest_ReturnsPromptly) {
  ScriptedLlmServer server({ScriptedReply{.hang = true}});
  CancelToken cancel;
  absl::StatusOr<ChatResponse> response;
  absl::Notification done;
  std::thread caller([&] {
    response = ChatClient(FastOptions(server.base_url())).Complete(Hello(), &cancel);
    done.Notify();
  });
  ASSERT_TRUE(server.WaitForRequests(1, absl::Seconds(10)));
  const absl::Time cancelled_at = absl::Now();
  cancel.Cancel("test");
  const bool returned = done.WaitForNotificationWithTimeout(absl::Seconds(5));
  const absl::Duration took = absl::Now() - cancelled_at;
  caller.join();
  ASSERT_TRUE(returned);
  EXPECT_LT(took, absl::Milliseconds(500));
  EXPECT_THAT(response, StatusIs(absl::StatusCode::kCancelled));
}

TEST(ChatClient, CancelledDuringRetryWait_ReturnsPromptly) {
  ScriptedReply limited = ErrorReply(429, "slow down");
  limited.headers = {{"Retry-After", "60"}};
  ScriptedLlmServer server({limited});
  CancelToken cancel;
  absl::StatusOr<ChatResponse> response;
  absl::Notification done;
  std::thread caller([&] {
    response = ChatClient(FastOptions(server.base_url())).Complete(Hello(), &cancel);
    done.Notify();
  });
  ASSERT_TRUE(server.WaitForRequests(1, absl::Seconds(10)));
  cancel.Cancel("test");
  const bool returned = done.WaitForNotificationWithTimeout(absl::Seconds(5));
  caller.join();
  ASSERT_TRUE(returned);
  EXPECT_THAT(response, StatusIs(absl::StatusCode::kCancelled));
}

TEST(ChatClient, Streaming_ForwardsDeltasAndAssemblesToolCalls) {
  ScriptedReply stream;
  stream.sse_chunks = {
      R"({"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]})",
      R"({"choices":[{"index":0,"delta":{"content":"lo"}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.txt\"}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
      R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":4}})"};
  ScriptedLlmServer server({stream});
  ChatRequest request = Hello();
  request.stream = true;
  std::vector<std::string> deltas;
  absl::StatusOr<ChatResponse> response =
      ChatClient(FastOptions(server.base_url()))
          .Complete(request, nullptr, [&](absl::string_view d) { deltas.emplace_back(d); });
  ASSERT_THAT(response, IsOk());
  EXPECT_THAT(deltas, ::testing::ElementsAre("Hel", "lo"));
  EXPECT_EQ(response->message.content(), "Hello");
  ASSERT_EQ(response->message.tool_calls_size(), 1);
  EXPECT_EQ(response->message.tool_calls(0).id(), "call_1");
  EXPECT_EQ(response->message.tool_calls(0).name(), "read_file");
  EXPECT_EQ(response->message.tool_calls(0).arguments_json(), R"({"path":"a.txt"})");
  EXPECT_EQ(response->finish_reason, "tool_calls");
  EXPECT_EQ(response->prompt_tokens, 7);
  EXPECT_EQ(response->completion_tokens, 4);
  const Json sent = server.requests()[0];
  EXPECT_EQ(sent["stream"], true);
  EXPECT_EQ(sent["stream_options"]["include_usage"], true);
}

TEST(ChatClient, StreamRequestedButJsonAnswer_ForwardsWholeContent) {
  ScriptedLlmServer server({TextReply("all at once")});
  ChatRequest request = Hello();
  request.stream = true;
  std::string live;
  absl::StatusOr<ChatResponse> response = ChatClient(FastOptions(server.base_url()))
                                              .Complete(request, nullptr, [&](absl::string_view d) {
                                                live.append(d.data(), d.size());
                                              });
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(live, "all at once");
}

}  // namespace
}  // namespace taskboard::worker
