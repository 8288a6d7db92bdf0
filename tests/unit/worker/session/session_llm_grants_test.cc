// LLM governance through a whole worker session: an llm agent's model call
// becomes an LlmGrantRequest on the stream when the Welcome says the
// scheduler governs, waits for the scripted scheduler's LlmGrant, and is
// reported (LlmCallReport) before the task's result, also across a
// reconnect. An older scheduler's Welcome leaves calls ungoverned.

#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/agents/scripted_llm_server.h"
#include "tests/unit/worker/session/session_harness.h"
#include "worker/session/session.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::CachedTextReply;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::ScriptedLlmServer;
using ::taskboard::worker::testing::SessionHarness;
using ::testing::HasSubstr;

class SessionLlmGrantsTest : public SessionHarness {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "helper.md")
        << "---\ntype: llm\nmodel: test-model\nbaseUrl: " << server_.base_url()
        << "\napiKeyEnv: TASKBOARD_TEST_NO_SUCH_KEY\nstream: false\n---\nYou help.\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.workdir = dir_.path()}));
    SessionOptions options;
    options.workspaces = TaskWorkspaces::Shared(dir_.path());
    StartSession(options);
  }

  void TearDown() override {
    ASSERT_NO_FATAL_FAILURE(StopSession());
    EXPECT_THAT(status_, IsOk());
  }

  // Welcomes the `index`-th connection, saying whether the scheduler governs
  // LLM calls.
  FakeStream* WelcomeGoverning(size_t index, bool governs) {
    FakeStream* stream = gateway_.WaitForStream(index);
    EXPECT_NE(stream, nullptr);
    if (stream == nullptr) return nullptr;
    auto hello = stream->Next();
    EXPECT_TRUE(hello.has_value() && hello->has_hello()) << "no Hello";
    v1::ConnectResponse welcome;
    welcome.mutable_welcome()->set_scheduler_id("s1");
    welcome.mutable_welcome()->set_governs_llm_calls(governs);
    stream->Send(welcome);
    return stream;
  }

  static v1::ConnectResponse AssignHelper(const std::string& lease) {
    v1::ConnectResponse message = Assign("helper", lease, "Find the answer.");
    message.mutable_assignment()->set_run_id("run-1");
    return message;
  }

  static v1::ConnectResponse Grant(const std::string& request_id, const std::string& grant_id) {
    v1::ConnectResponse message;
    message.mutable_llm_grant()->set_request_id(request_id);
    message.mutable_llm_grant()->set_granted(true);
    message.mutable_llm_grant()->set_grant_id(grant_id);
    return message;
  }

  ScriptedLlmServer server_{{CachedTextReply("42", 30, 2, 16)}};
};

TEST_F(SessionLlmGrantsTest, Governed_GrantRequestThenCallThenReportBeforeTheResult) {
  FakeStream* stream = WelcomeGoverning(0, true);
  ASSERT_NE(stream, nullptr);
  stream->Send(AssignHelper("l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  const v1::ConnectRequest ask = Expect(stream, v1::ConnectRequest::kLlmGrantRequest);
  const v1::LlmGrantRequest& request = ask.llm_grant_request();
  EXPECT_EQ(request.task_id(), "task-l1");
  EXPECT_EQ(request.lease_id(), "l1");
  EXPECT_EQ(request.model(), "test-model");
  EXPECT_GT(request.estimated_input_tokens(), 0);
  EXPECT_TRUE(server_.requests().empty()) << "called before the grant";

  stream->Send(Grant(request.request_id(), "g1"));
  const v1::ConnectRequest reported =
      Expect(stream, v1::ConnectRequest::kLlmCallReport, /*skip_deltas=*/true);
  const v1::LlmCallReport& report = reported.llm_call_report();
  EXPECT_EQ(report.grant_id(), "g1");
  EXPECT_EQ(report.task_id(), "task-l1");
  EXPECT_EQ(report.lease_id(), "l1");
  EXPECT_EQ(report.run_id(), "run-1");
  EXPECT_EQ(report.model(), "test-model");
  EXPECT_EQ(report.http_status(), 200);
  EXPECT_EQ(report.input_tokens(), 30);
  EXPECT_EQ(report.output_tokens(), 2);
  EXPECT_EQ(report.cached_tokens(), 16);

  const v1::ConnectRequest result =
      Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true);
  EXPECT_TRUE(result.task_result().success()) << result.task_result().error();
  EXPECT_EQ(result.task_result().output(), "42");
  EXPECT_EQ(result.task_result().usage().cache_read_tokens(), 16);
  stream->Send(Ack("l1"));
}

TEST_F(SessionLlmGrantsTest, Refused_TaskFailsWithTheSchedulersText) {
  FakeStream* stream = WelcomeGoverning(0, true);
  ASSERT_NE(stream, nullptr);
  stream->Send(AssignHelper("l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  const v1::ConnectRequest ask = Expect(stream, v1::ConnectRequest::kLlmGrantRequest);
  v1::ConnectResponse refusal;
  refusal.mutable_llm_grant()->set_request_id(ask.llm_grant_request().request_id());
  refusal.mutable_llm_grant()->set_error("run run-1 is over its budget of $1.00: raise it");
  stream->Send(refusal);
  const v1::ConnectRequest result =
      Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true);
  EXPECT_FALSE(result.task_result().success());
  EXPECT_THAT(result.task_result().error(),
              HasSubstr("the scheduler refused the call: run run-1 is over its budget of $1.00"));
  EXPECT_TRUE(server_.requests().empty());
  stream->Send(Ack("l1"));
}

TEST_F(SessionLlmGrantsTest, SchedulerDoesNotGovern_CallsWithoutAskingOrReporting) {
  FakeStream* stream = WelcomeGoverning(0, false);
  ASSERT_NE(stream, nullptr);
  stream->Send(AssignHelper("l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  const v1::ConnectRequest result =
      Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true);
  EXPECT_TRUE(result.task_result().success()) << result.task_result().error();
  EXPECT_EQ(server_.requests().size(), 1u);
  stream->Send(Ack("l1"));
}

// The stream drops while the call waits: the next stream is asked again,
// under the same request id, and the call goes ahead on that grant.
TEST_F(SessionLlmGrantsTest, StreamDropsWhileWaiting_AskedAgainOnTheNextStream) {
  FakeStream* first = WelcomeGoverning(0, true);
  ASSERT_NE(first, nullptr);
  first->Send(AssignHelper("l1"));
  Expect(first, v1::ConnectRequest::kTaskStarted);
  const v1::ConnectRequest ask = Expect(first, v1::ConnectRequest::kLlmGrantRequest);
  first->End();

  FakeStream* second = WelcomeGoverning(1, true);
  ASSERT_NE(second, nullptr);
  const v1::ConnectRequest again = Expect(second, v1::ConnectRequest::kLlmGrantRequest);
  EXPECT_EQ(again.llm_grant_request().request_id(), ask.llm_grant_request().request_id());
  second->Send(Grant(again.llm_grant_request().request_id(), "g2"));
  const v1::ConnectRequest reported =
      Expect(second, v1::ConnectRequest::kLlmCallReport, /*skip_deltas=*/true);
  EXPECT_EQ(reported.llm_call_report().grant_id(), "g2");
  const v1::ConnectRequest result =
      Expect(second, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true);
  EXPECT_TRUE(result.task_result().success()) << result.task_result().error();
  second->Send(Ack("l1"));
}

}  // namespace
}  // namespace taskboard::worker
