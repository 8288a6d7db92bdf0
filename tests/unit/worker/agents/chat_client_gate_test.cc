// The chat client under a gate (worker/agents/llm_call_gate.h) against a
// real HTTP server in this process: every attempt asks first and reports
// after; a refusal makes no request; a granted 429 does not back off on its
// own; cached tokens reach the report and the response.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/agents/fake_llm_call_gate.h"
#include "tests/unit/worker/agents/scripted_llm_server.h"
#include "worker/agents/chat_client.h"
#include "worker/agents/chat_json.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::worker::testing::CachedTextReply;
using ::taskboard::worker::testing::ErrorReply;
using ::taskboard::worker::testing::FakeLlmCallGate;
using ::taskboard::worker::testing::ScriptedLlmServer;
using ::taskboard::worker::testing::ScriptedReply;
using ::taskboard::worker::testing::TextReply;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

ChatRequest Hello() {
  ChatRequest request;
  request.model = "test-model";
  v1::ChatMessage& user = request.messages.emplace_back();
  user.set_role("user");
  user.set_content("hello");
  return request;
}

class ChatClientGateTest : public ::testing::Test {
 protected:
  ChatClientOptions Options(const ScriptedLlmServer& server) {
    ChatClientOptions options;
    options.base_url = server.base_url();
    options.request_timeout = absl::Seconds(10);
    options.max_attempts = 3;
    // Long enough that a test would notice the client sleeping it.
    options.backoff = {absl::Seconds(10), absl::Seconds(30)};
    options.gate = &gate_;
    return options;
  }

  FakeLlmCallGate gate_;
};

TEST_F(ChatClientGateTest, Success_AcquiresWithThePlanThenReportsTheUsage) {
  ScriptedLlmServer server({CachedTextReply("hi", 120, 7, 96)});
  ChatRequest request = Hello();
  request.max_tokens = 512;
  absl::StatusOr<ChatResponse> response = ChatClient(Options(server)).Complete(request, nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->cached_tokens, 96);

  ASSERT_THAT(gate_.acquired(), SizeIs(1));
  const LlmCallPlan plan = gate_.acquired()[0];
  EXPECT_EQ(plan.model, "test-model");
  absl::StatusOr<std::string> body = ChatRequestBody(request);
  ASSERT_THAT(body, IsOk());
  EXPECT_EQ(plan.estimated_input_tokens, static_cast<int64_t>(body->size() / 4));
  EXPECT_EQ(plan.max_output_tokens, 512);

  ASSERT_THAT(gate_.reported(), SizeIs(1));
  const FakeLlmCallGate::Reported report = gate_.reported()[0];
  EXPECT_EQ(report.grant_id, "g1");
  EXPECT_EQ(report.plan.model, "test-model");
  EXPECT_EQ(report.end.http_status, 200);
  EXPECT_EQ(report.end.retry_after, absl::ZeroDuration());
  EXPECT_EQ(report.end.input_tokens, 120);
  EXPECT_EQ(report.end.output_tokens, 7);
  EXPECT_EQ(report.end.cached_tokens, 96);
}

TEST_F(ChatClientGateTest, NoMaxTokens_PlansZeroOutputTokens) {
  ScriptedLlmServer server({TextReply("hi")});
  ASSERT_THAT(ChatClient(Options(server)).Complete(Hello(), nullptr), IsOk());
  ASSERT_THAT(gate_.acquired(), SizeIs(1));
  EXPECT_EQ(gate_.acquired()[0].max_output_tokens, 0);
}

// The scheduler paused the model for everyone on the 429's report: the next
// grant is the wait, not the client's own (10 s) backoff.
TEST_F(ChatClientGateTest, GrantedTooManyRequests_ReportedAndRetriedWithoutOwnBackoff) {
  ScriptedReply limited = ErrorReply(429, "slow down");
  limited.headers = {{"Retry-After", "7"}};
  ScriptedLlmServer server({limited, TextReply("done", 30, 4)});
  const absl::Time start = absl::Now();
  absl::StatusOr<ChatResponse> response = ChatClient(Options(server)).Complete(Hello(), nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(gate_.acquired(), SizeIs(2));

  const std::vector<FakeLlmCallGate::Reported> reports = gate_.reported();
  ASSERT_THAT(reports, SizeIs(2));
  EXPECT_EQ(reports[0].grant_id, "g1");
  EXPECT_EQ(reports[0].end.http_status, 429);
  EXPECT_EQ(reports[0].end.retry_after, absl::Seconds(7));
  EXPECT_EQ(reports[0].end.input_tokens, 0);
  EXPECT_EQ(reports[1].grant_id, "g2");
  EXPECT_EQ(reports[1].end.http_status, 200);
  EXPECT_EQ(reports[1].end.input_tokens, 30);
  EXPECT_EQ(reports[1].end.output_tokens, 4);
}

// A 429 still counts against maxAttempts.
TEST_F(ChatClientGateTest, GrantedTooManyRequestsEveryTime_FailsAfterMaxAttempts) {
  ScriptedLlmServer server({ErrorReply(429, "slow down")});
  const absl::Time start = absl::Now();
  EXPECT_THAT(ChatClient(Options(server)).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("after 3 attempts")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_THAT(gate_.acquired(), SizeIs(3));
  EXPECT_THAT(gate_.reported(), SizeIs(3));
}

// A call the gate let through ungoverned (grant id "") paused nothing at the
// scheduler: it backs off as without a gate (here Retry-After's 1 s).
TEST_F(ChatClientGateTest, UngovernedTooManyRequests_BacksOffOnItsOwn) {
  gate_.Ungoverned();
  ScriptedReply limited = ErrorReply(429, "slow down");
  limited.headers = {{"Retry-After", "1"}};
  ScriptedLlmServer server({limited, TextReply("done")});
  ChatClientOptions options = Options(server);
  options.backoff = {absl::Milliseconds(1), absl::Milliseconds(5)};
  const absl::Time start = absl::Now();
  ASSERT_THAT(ChatClient(options).Complete(Hello(), nullptr), IsOk());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(950));
  const std::vector<FakeLlmCallGate::Reported> reports = gate_.reported();
  ASSERT_THAT(reports, SizeIs(2));
  EXPECT_EQ(reports[0].grant_id, "");
  EXPECT_EQ(reports[0].end.http_status, 429);
}

TEST_F(ChatClientGateTest, Refused_FailsWithTheSchedulersTextAndMakesNoRequest) {
  gate_.Refuse(absl::FailedPreconditionError(
      "run r1 would pass its budget of $5.00 (spent $4.98): raise the run's budget"));
  ScriptedLlmServer server({TextReply("never")});
  EXPECT_THAT(
      ChatClient(Options(server)).Complete(Hello(), nullptr),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(StartsWith("POST " + server.base_url() + "/chat/completions: "),
                     HasSubstr("the scheduler refused the call: run r1 would pass its budget of "
                               "$5.00 (spent $4.98): raise the run's budget"))));
  EXPECT_THAT(server.requests(), IsEmpty());
  EXPECT_THAT(gate_.reported(), IsEmpty()) << "no call was made";
}

TEST_F(ChatClientGateTest, CancelledWhileAcquiring_CancelledAndNoRequest) {
  gate_.Refuse(absl::CancelledError("cancelled: run cancelled"));
  ScriptedLlmServer server({TextReply("never")});
  EXPECT_THAT(ChatClient(Options(server)).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("cancelled: run cancelled")));
  EXPECT_THAT(server.requests(), IsEmpty());
}

TEST_F(ChatClientGateTest, Deadline_PassedToTheGate) {
  ScriptedLlmServer server({TextReply("hi")});
  const absl::Time deadline = absl::Now() + absl::Minutes(3);
  ASSERT_THAT(ChatClient(Options(server)).Complete(Hello(), nullptr, nullptr, deadline), IsOk());
  ASSERT_THAT(gate_.deadlines(), SizeIs(1));
  EXPECT_EQ(gate_.deadlines()[0], deadline);
}

// A gate that grants only once the deadline has passed (a scheduler whose
// queue was longer than the task's time).
class LateGate : public FakeLlmCallGate {
 public:
  absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                      absl::Time deadline) override {
    absl::SleepFor(deadline - absl::Now() + absl::Milliseconds(5));
    return FakeLlmCallGate::Acquire(plan, cancel, deadline);
  }
};

TEST_F(ChatClientGateTest, GrantedAfterTheDeadline_ReportedUnmadeAndTimesOut) {
  LateGate late;
  ScriptedLlmServer server({TextReply("never")});
  ChatClientOptions options = Options(server);
  options.gate = &late;
  EXPECT_THAT(
      ChatClient(options).Complete(Hello(), nullptr, nullptr, absl::Now() + absl::Milliseconds(50)),
      StatusIs(absl::StatusCode::kDeadlineExceeded,
               HasSubstr("ran out while waiting for the scheduler's grant")));
  EXPECT_THAT(server.requests(), IsEmpty());
  ASSERT_THAT(late.reported(), SizeIs(1));
  EXPECT_EQ(late.reported()[0].grant_id, "g1");
  EXPECT_EQ(late.reported()[0].end.http_status, 0);
}

// Transport errors are reported too (status 0), so the grant is released.
TEST_F(ChatClientGateTest, NoServer_ReportedWithStatusZero) {
  int port = 0;
  {
    ScriptedLlmServer gone({TextReply("x")});
    port = gone.port();
  }
  ChatClientOptions options;
  options.base_url = absl::StrCat("http://127.0.0.1:", port, "/v1");
  options.gate = &gate_;
  EXPECT_THAT(ChatClient(options).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kUnavailable));
  ASSERT_THAT(gate_.reported(), SizeIs(1));
  EXPECT_EQ(gate_.reported()[0].grant_id, "g1");
  EXPECT_EQ(gate_.reported()[0].end.http_status, 0);
}

TEST_F(ChatClientGateTest, Streamed_CachedTokensFromTheUsageChunk) {
  ScriptedReply stream;
  stream.sse_chunks = {
      R"({"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})",
      R"({"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":32}}})"};
  ScriptedLlmServer server({stream});
  ChatRequest request = Hello();
  request.stream = true;
  absl::StatusOr<ChatResponse> response = ChatClient(Options(server)).Complete(request, nullptr);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->cached_tokens, 32);
  ASSERT_THAT(gate_.reported(), SizeIs(1));
  EXPECT_EQ(gate_.reported()[0].end.input_tokens, 50);
  EXPECT_EQ(gate_.reported()[0].end.output_tokens, 2);
  EXPECT_EQ(gate_.reported()[0].end.cached_tokens, 32);
}

// A 2xx that is not a chat completion still ends the grant: reported with
// its status and no usage.
TEST_F(ChatClientGateTest, MalformedAnswer_ReportedWithItsStatus) {
  ScriptedLlmServer server({ScriptedReply{.body = "{\"choices\": [oops"}});
  EXPECT_THAT(ChatClient(Options(server)).Complete(Hello(), nullptr),
              StatusIs(absl::StatusCode::kInternal));
  ASSERT_THAT(gate_.reported(), SizeIs(1));
  EXPECT_EQ(gate_.reported()[0].end.http_status, 200);
  EXPECT_EQ(gate_.reported()[0].end.input_tokens, 0);
}

}  // namespace
}  // namespace taskboard::worker
