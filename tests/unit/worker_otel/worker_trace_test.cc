// A whole worker session's spans (docs/observability.md#worker-spans),
// exported over OTLP/HTTP to a real receiver in the test
// (tests/unit/otel/otlp_receiver.h: cpp-httplib on port 0, bodies decoded
// with the compiled OTLP protos), the scheduler played by the scripted
// gateway (tests/unit/worker/session/fake_gateway.h) and the model by a
// scripted OpenAI-compatible server: the attempt span hangs under the
// assignment's traceparent, LLM and tool calls under the attempt with the
// GenAI attributes, a command agent gets TRACEPARENT, an untraced or
// unsampled assignment records nothing, and a dead collector costs a task
// nothing but dropped spans.

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "common/otel/otel_metrics.h"
#include "common/otel/tracing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/otel/dead_endpoints.h"
#include "tests/unit/otel/otlp_receiver.h"
#include "tests/unit/worker/agents/scripted_llm_server.h"
#include "tests/unit/worker/session/session_harness.h"
#include "tests/unit/worker/tools/test_tools.h"
#include "worker/agents/genai_content.h"
#include "worker/session/session.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {
namespace {

using ::opentelemetry::proto::common::v1::AnyValue;
using ::opentelemetry::proto::trace::v1::Span;
using ::taskboard::otel::testing::OtlpReceiver;
using ::taskboard::otel::testing::RefusingPort;
using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::CountingTool;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::ScriptedLlmServer;
using ::taskboard::worker::testing::SessionHarness;
using ::taskboard::worker::testing::TextReply;
using ::taskboard::worker::testing::ToolCallReply;
using ::testing::HasSubstr;

constexpr char kTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kParentId[] = "00f067aa0ba902b7";

std::string Traceparent(const std::string& flags) {
  return absl::StrCat("00-", kTraceId, "-", kParentId, "-", flags);
}

std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

// The attribute `key` of `span`, or nullopt.
std::optional<AnyValue> Attribute(const Span& span, const std::string& key) {
  for (const auto& attribute : span.attributes()) {
    if (attribute.key() == key) return attribute.value();
  }
  return std::nullopt;
}

std::string StringAttribute(const Span& span, const std::string& key) {
  std::optional<AnyValue> value = Attribute(span, key);
  return value ? value->string_value() : "<absent>";
}

int64_t IntAttribute(const Span& span, const std::string& key) {
  std::optional<AnyValue> value = Attribute(span, key);
  return value ? value->int_value() : -1;
}

class WorkerTraceTest : public SessionHarness {
 protected:
  void SetUp() override {
    // Prints the TRACEPARENT it was given (nothing when none).
    std::ofstream(dir_.path() / "tracer.yaml")
        << "command: [/bin/sh, -c, 'printf \"%s|%s\" \"${TRACEPARENT:-}\" \"${TRACESTATE:-}\"']\n"
           "passEnv: [TRACEPARENT]\n";
    std::ofstream(dir_.path() / "helper.md")
        << "---\ntype: llm\nmodel: test-model\nbaseUrl: " << llm_.base_url()
        << "\napiKeyEnv: TASKBOARD_TEST_NO_SUCH_KEY\nstream: false\n"
           "pricing:\n  test-model: {inputPerMtok: 1.0, outputPerMtok: 2.0}\n---\nYou help.\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.workdir = dir_.path()}));
    ASSERT_THAT(tools_.Add(std::make_unique<CountingTool>("echo")), IsOk());
  }

  void TearDown() override {
    ASSERT_NO_FATAL_FAILURE(StopSession());
    ::unsetenv("TRACEPARENT");  // set by a test, read by no thread now
    EXPECT_THAT(status_, IsOk());
    if (tracing_ != nullptr) tracing_->Shutdown(absl::Seconds(1));
  }

  // Tracing to `traces_url`, then the session with it (`capture_content`:
  // as --trace-capture-content).
  void StartTraced(const std::string& traces_url, otel::BatchOptions batch = {},
                   bool capture_content = false) {
    otel::TracingOptions options;
    options.traces_url = traces_url;
    options.batch = batch;
    options.export_timeout = absl::Seconds(2);
    absl::StatusOr<std::unique_ptr<otel::Tracing>> tracing =
        otel::Tracing::Create(options, &otel_metrics_);
    ASSERT_THAT(tracing, IsOk());
    tracing_ = *std::move(tracing);
    SessionOptions session;
    session.tools = &tools_;
    session.workspaces = TaskWorkspaces::Shared(dir_.path());
    session.tool_socket.parent_dir = dir_.path();
    session.tracer = &tracing_->tracer();
    session.trace_capture_content = capture_content;
    StartSession(session);
  }

  static v1::ConnectResponse AssignTraced(const std::string& agent, const std::string& lease,
                                          const std::string& traceparent) {
    v1::ConnectResponse message = Assign(agent, lease);
    message.mutable_assignment()->set_run_id("run-1");
    message.mutable_assignment()->set_attempt(2);
    message.mutable_assignment()->set_traceparent(traceparent);
    return message;
  }

  // The next message of `kind`, skipping the others (TaskStarted, output,
  // credits, observations); a failure when none comes in time.
  static v1::ConnectRequest NextOf(FakeStream* stream, v1::ConnectRequest::MsgCase kind) {
    while (absl::optional<v1::ConnectRequest> message = stream->Next()) {
      if (message->msg_case() == kind) return *message;
    }
    ADD_FAILURE() << "no message of case " << kind;
    return v1::ConnectRequest();
  }

  // Runs `assignment` to its result and returns it.
  static v1::TaskResult RunToResult(FakeStream* stream, const v1::ConnectResponse& assignment) {
    stream->Send(assignment);
    v1::TaskResult result = NextOf(stream, v1::ConnectRequest::kTaskResult).task_result();
    stream->Send(Ack(assignment.assignment().lease_id()));
    return result;
  }

  // Every span the receiver decoded, once what ended is exported.
  std::vector<Span> ExportedSpans() {
    EXPECT_TRUE(tracing_->Flush(absl::Seconds(10))) << "the spans were not exported in time";
    std::vector<Span> spans;
    for (const auto& request : receiver_.requests()) {
      EXPECT_TRUE(request.decoded);
      for (const auto& resource : request.request.resource_spans()) {
        for (const auto& scope : resource.scope_spans()) {
          for (const Span& span : scope.spans()) spans.push_back(span);
        }
      }
    }
    return spans;
  }

  static std::vector<Span> Named(const std::vector<Span>& spans, const std::string& name) {
    std::vector<Span> named;
    for (const Span& span : spans) {
      if (span.name() == name) named.push_back(span);
    }
    return named;
  }

  std::optional<double> Sample(const std::string& series) {
    return ::taskboard::testing::SampleValue(metrics::SerializeTextFormat(registry_.Collect()),
                                             series);
  }

  ScriptedLlmServer llm_{
      {ToolCallReply("call-1", "echo", R"({"x":1})", 11, 4), TextReply("done", 20, 6)}};
  OtlpReceiver receiver_;
  metrics::Registry registry_;
  otel::OtelExportMetrics otel_metrics_{registry_};
  std::unique_ptr<otel::Tracing> tracing_;
  // Must outlive the session (StopSession destroys it first).
  ToolRegistry tools_;
};

TEST_F(WorkerTraceTest, SampledAssignment_AttemptSpanUnderItsTraceparent_AgentGetsTRACEPARENT) {
  ASSERT_NO_FATAL_FAILURE(StartTraced(receiver_.traces_url()));
  FakeStream* stream = Welcome(0);
  const v1::TaskResult result =
      RunToResult(stream, AssignTraced("tracer", "l1", Traceparent("01")));
  ASSERT_TRUE(result.success()) << result.error();

  const std::vector<Span> attempts = Named(ExportedSpans(), "task.attempt");
  ASSERT_EQ(attempts.size(), 1u);
  const Span& attempt = attempts[0];
  EXPECT_EQ(Hex(attempt.trace_id()), kTraceId);
  EXPECT_EQ(Hex(attempt.parent_span_id()), kParentId);
  EXPECT_EQ(attempt.kind(), Span::SPAN_KIND_CONSUMER);
  EXPECT_EQ(StringAttribute(attempt, "taskboard.run_id"), "run-1");
  EXPECT_EQ(StringAttribute(attempt, "taskboard.task_id"), "task-l1");
  EXPECT_EQ(IntAttribute(attempt, "taskboard.attempt"), 2);
  EXPECT_EQ(StringAttribute(attempt, "gen_ai.agent.name"), "tracer");
  EXPECT_EQ(StringAttribute(attempt, "taskboard.outcome"), "succeeded");

  // The agent's TRACEPARENT is the attempt span's context, sampled.
  EXPECT_EQ(result.output(), absl::StrCat("00-", kTraceId, "-", Hex(attempt.span_id()), "-01|"));
}

TEST_F(WorkerTraceTest, NoTraceparent_NoSpansAndNoTRACEPARENT) {
  ::setenv("TRACEPARENT", Traceparent("01").c_str(), 1);  // passEnv must not leak it
  ASSERT_NO_FATAL_FAILURE(StartTraced(receiver_.traces_url()));
  FakeStream* stream = Welcome(0);
  const v1::TaskResult untraced = RunToResult(stream, AssignTraced("tracer", "l1", ""));
  const v1::TaskResult malformed =
      RunToResult(stream, AssignTraced("tracer", "l2", "00-not-a-traceparent-01"));
  ASSERT_TRUE(untraced.success()) << untraced.error();
  EXPECT_EQ(untraced.output(), "|");
  EXPECT_EQ(malformed.output(), "|");
  EXPECT_THAT(ExportedSpans(), ::testing::IsEmpty());
  EXPECT_EQ(tracing_->stats().accepted, 0);
}

TEST_F(WorkerTraceTest, UnsampledTraceparent_NoSpans_AgentGetsTheUnsampledContext) {
  ASSERT_NO_FATAL_FAILURE(StartTraced(receiver_.traces_url()));
  FakeStream* stream = Welcome(0);
  const v1::TaskResult result =
      RunToResult(stream, AssignTraced("tracer", "l1", Traceparent("00")));
  ASSERT_TRUE(result.success()) << result.error();
  EXPECT_THAT(ExportedSpans(), ::testing::IsEmpty());
  // Same trace, not sampled: the agent's own SDK follows the run's decision.
  const std::vector<std::string> parts = absl::StrSplit(result.output(), '-');
  ASSERT_EQ(parts.size(), 4u) << result.output();
  EXPECT_EQ(parts[1], kTraceId);
  EXPECT_EQ(parts[3], "00|");
}

TEST_F(WorkerTraceTest, LlmAgent_ChatAndToolSpansUnderTheAttempt_WithGenAiAttributes) {
  ASSERT_NO_FATAL_FAILURE(StartTraced(receiver_.traces_url()));
  FakeStream* stream = Welcome(0);
  stream->Send(AssignTraced("helper", "l1", Traceparent("01")));
  const v1::ToolLookup lookup = NextOf(stream, v1::ConnectRequest::kToolLookup).tool_lookup();
  v1::ConnectResponse decision;
  decision.mutable_tool_decision()->set_request_id(lookup.request_id());
  decision.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_HIT);
  decision.mutable_tool_decision()->set_result_json(R"({"from":"cache"})");
  decision.mutable_tool_decision()->set_cache_age_ms(10);
  decision.mutable_tool_decision()->mutable_source_task()->set_run_id("run-0");
  decision.mutable_tool_decision()->mutable_source_task()->set_task_id("earlier");
  stream->Send(decision);
  const v1::TaskResult result = NextOf(stream, v1::ConnectRequest::kTaskResult).task_result();
  ASSERT_TRUE(result.success()) << result.error();
  stream->Send(Ack("l1"));

  const std::vector<Span> spans = ExportedSpans();
  const std::vector<Span> attempts = Named(spans, "task.attempt");
  ASSERT_EQ(attempts.size(), 1u);
  const std::string attempt_id = attempts[0].span_id();
  EXPECT_EQ(IntAttribute(attempts[0], "gen_ai.usage.input_tokens"), 31);
  EXPECT_EQ(IntAttribute(attempts[0], "gen_ai.usage.output_tokens"), 10);

  const std::vector<Span> chats = Named(spans, "chat test-model");
  ASSERT_EQ(chats.size(), 2u);
  // Exported in the order they ended.
  const Span& first = chats[0];
  EXPECT_EQ(Hex(first.trace_id()), kTraceId);
  EXPECT_EQ(first.parent_span_id(), attempt_id);
  EXPECT_EQ(first.kind(), Span::SPAN_KIND_CLIENT);
  EXPECT_EQ(StringAttribute(first, "gen_ai.operation.name"), "chat");
  EXPECT_EQ(StringAttribute(first, "gen_ai.system"), "openai");
  EXPECT_EQ(StringAttribute(first, "gen_ai.provider.name"), "openai");
  EXPECT_EQ(StringAttribute(first, "gen_ai.request.model"), "test-model");
  EXPECT_EQ(IntAttribute(first, "gen_ai.usage.input_tokens"), 11);
  EXPECT_EQ(IntAttribute(first, "gen_ai.usage.output_tokens"), 4);
  EXPECT_EQ(StringAttribute(first, "taskboard.llm.governance"), "ungoverned");
  std::optional<AnyValue> reasons = Attribute(first, "gen_ai.response.finish_reasons");
  ASSERT_TRUE(reasons.has_value());
  ASSERT_EQ(reasons->array_value().values_size(), 1);
  EXPECT_EQ(reasons->array_value().values(0).string_value(), "tool_calls");
  std::optional<AnyValue> cost = Attribute(first, "taskboard.llm.cost");
  ASSERT_TRUE(cost.has_value());
  EXPECT_NEAR(cost->double_value(), (11 * 1.0 + 4 * 2.0) / 1e6, 1e-12);
  EXPECT_EQ(IntAttribute(chats[1], "gen_ai.usage.input_tokens"), 20);
  EXPECT_EQ(IntAttribute(chats[1], "gen_ai.usage.output_tokens"), 6);

  const std::vector<Span> tools = Named(spans, "execute_tool echo");
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].parent_span_id(), attempt_id);
  EXPECT_EQ(StringAttribute(tools[0], "gen_ai.operation.name"), "execute_tool");
  EXPECT_EQ(StringAttribute(tools[0], "gen_ai.tool.name"), "echo");
  EXPECT_EQ(StringAttribute(tools[0], "taskboard.tool.cache"), "hit");
  EXPECT_EQ(StringAttribute(tools[0], "taskboard.tool.source_task_id"), "earlier");
  EXPECT_EQ(StringAttribute(tools[0], "taskboard.tool.source_run_id"), "run-0");
  // No prompt or completion text anywhere.
  for (const Span& span : spans) {
    for (const auto& attribute : span.attributes()) {
      EXPECT_THAT(attribute.value().string_value(), ::testing::Not(::testing::HasSubstr("hello")))
          << span.name() << " " << attribute.key();
      EXPECT_THAT(attribute.value().string_value(), ::testing::Not(::testing::HasSubstr("done")))
          << span.name() << " " << attribute.key();
    }
  }
}

class WorkerTraceContentTest : public WorkerTraceTest {
 protected:
  // The two chat spans of one llm task run by a worker with the flag
  // `capture_content`, for an assignment whose tenant allows content or not.
  std::vector<Span> ChatSpans(bool capture_content, bool content_allowed) {
    StartTraced(receiver_.traces_url(), {}, capture_content);
    FakeStream* stream = Welcome(0);
    v1::ConnectResponse assignment = AssignTraced("helper", "l1", Traceparent("01"));
    assignment.mutable_assignment()->set_trace_content_allowed(content_allowed);
    stream->Send(assignment);
    const v1::ToolLookup lookup = NextOf(stream, v1::ConnectRequest::kToolLookup).tool_lookup();
    v1::ConnectResponse decision;
    decision.mutable_tool_decision()->set_request_id(lookup.request_id());
    decision.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_HIT);
    decision.mutable_tool_decision()->set_result_json(R"({"from":"cache"})");
    stream->Send(decision);
    const v1::TaskResult result = NextOf(stream, v1::ConnectRequest::kTaskResult).task_result();
    EXPECT_TRUE(result.success()) << result.error();
    stream->Send(Ack("l1"));
    return Named(ExportedSpans(), "chat test-model");
  }

  // The attribute's JSON text parsed; null when it is not JSON.
  static Json Parsed(const std::string& text) { return TryParseJson(text).value_or(Json()); }

  static void ExpectNoContent(const std::vector<Span>& chats) {
    ASSERT_EQ(chats.size(), 2u);
    for (const Span& chat : chats) {
      for (const char* key :
           {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"}) {
        EXPECT_FALSE(Attribute(chat, key).has_value()) << key;
      }
      for (const auto& attribute : chat.attributes()) {
        EXPECT_THAT(attribute.value().string_value(), ::testing::Not(::testing::HasSubstr("hello")))
            << attribute.key();
      }
    }
  }
};

TEST_F(WorkerTraceContentTest, FlagOff_NoPromptOrCompletionOnChatSpans) {
  ExpectNoContent(ChatSpans(/*capture_content=*/false, /*content_allowed=*/true));
}

TEST_F(WorkerTraceContentTest, FlagOnAndAllowed_ChatSpansCarryTheConversationAsGenAiMessages) {
  const std::vector<Span> chats = ChatSpans(/*capture_content=*/true, /*content_allowed=*/true);
  ASSERT_EQ(chats.size(), 2u);
  // The first call: the system prompt and the task; the model asks for a tool.
  const Json system = Parsed(StringAttribute(chats[0], "gen_ai.system_instructions"));
  ASSERT_TRUE(system.is_array() && !system.empty()) << system;
  EXPECT_EQ(system[0]["type"], "text");
  EXPECT_THAT(system[0]["content"].get<std::string>(), HasSubstr("You help."));
  const Json input = Parsed(StringAttribute(chats[0], "gen_ai.input.messages"));
  ASSERT_TRUE(input.is_array() && input.size() == 1u) << input;
  EXPECT_EQ(input[0]["role"], "user");
  EXPECT_THAT(input[0]["parts"][0]["content"].get<std::string>(), HasSubstr("hello"));
  const Json output = Parsed(StringAttribute(chats[0], "gen_ai.output.messages"));
  ASSERT_TRUE(output.is_array() && output.size() == 1u) << output;
  EXPECT_EQ(output[0]["role"], "assistant");
  EXPECT_EQ(output[0]["finish_reason"], "tool_calls");
  EXPECT_EQ(output[0]["parts"][0]["type"], "tool_call");
  EXPECT_EQ(output[0]["parts"][0]["id"], "call-1");
  EXPECT_EQ(output[0]["parts"][0]["name"], "echo");
  EXPECT_EQ(output[0]["parts"][0]["arguments"], R"({"x":1})");
  // The second: the tool's answer went in, the final text came out.
  const Json second_input = Parsed(StringAttribute(chats[1], "gen_ai.input.messages"));
  ASSERT_TRUE(second_input.is_array() && second_input.size() == 3u) << second_input;
  EXPECT_EQ(second_input[2]["role"], "tool");
  EXPECT_EQ(second_input[2]["parts"][0]["type"], "tool_call_response");
  EXPECT_EQ(second_input[2]["parts"][0]["id"], "call-1");
  EXPECT_THAT(second_input[2]["parts"][0]["response"].get<std::string>(), HasSubstr("cache"));
  const Json second_output = Parsed(StringAttribute(chats[1], "gen_ai.output.messages"));
  EXPECT_EQ(second_output[0]["parts"][0]["content"], "done");
  EXPECT_EQ(second_output[0]["finish_reason"], "stop");
}

TEST_F(WorkerTraceContentTest, FlagOnButTenantTurnedItOff_NoContent) {
  ExpectNoContent(ChatSpans(/*capture_content=*/true, /*content_allowed=*/false));
}

TEST(GenAiContent, LongConversation_EachValueBoundedAtAUtf8Boundary) {
  v1::ChatMessage user;
  user.set_role("user");
  std::string text;
  for (int i = 0; i < 20'000; ++i) text += "é";  // 2 bytes each: 40,000 bytes
  user.set_content(text);
  const std::string input = GenAiInputMessages({user});
  EXPECT_LE(input.size(), kMaxGenAiContentBytes);
  EXPECT_GE(input.size(), kMaxGenAiContentBytes - 1);
  // Never half a character.
  const unsigned char last = static_cast<unsigned char>(input.back());
  EXPECT_TRUE(last < 0x80 || (last & 0xC0) == 0x80) << "cut inside a character";
  EXPECT_EQ(GenAiInputMessages({}), "");
  EXPECT_EQ(GenAiSystemInstructions({user}), "");
}

TEST_F(WorkerTraceTest, DeadCollector_TasksCompleteAtOnce_DroppedSpansCounted) {
  RefusingPort dead;
  // A queue of one: the second span that ends while the first waits for a
  // collector that refuses is dropped at once.
  ASSERT_NO_FATAL_FAILURE(
      StartTraced(dead.traces_url(),
                  {.queue_capacity = 1, .max_batch = 1, .schedule_delay = absl::Milliseconds(10)}));
  FakeStream* stream = Welcome(0);
  const absl::Time start = absl::Now();
  for (int i = 0; i < 5; ++i) {
    const v1::TaskResult result =
        RunToResult(stream, AssignTraced("tracer", absl::StrCat("l", i), Traceparent("01")));
    ASSERT_TRUE(result.success()) << result.error();
  }
  // A retrying export of one batch alone takes over a second (export_retry.h):
  // the tasks did not wait for it.
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_NO_FATAL_FAILURE(StopSession());
  tracing_->Shutdown(absl::Milliseconds(200));
  EXPECT_EQ(tracing_->stats().exported, 0);
  EXPECT_EQ(tracing_->stats().dropped() + tracing_->stats().queued, 5);
  const double dropped =
      Sample("taskboard_otel_spans_dropped_total{reason=\"queue_full\"}").value_or(0) +
      Sample("taskboard_otel_spans_dropped_total{reason=\"shutdown\"}").value_or(0) +
      Sample("taskboard_otel_spans_dropped_total{reason=\"export_failed\"}").value_or(0);
  EXPECT_EQ(dropped, 5);
  EXPECT_GE(Sample("taskboard_otel_spans_dropped_total{reason=\"queue_full\"}").value_or(0), 1);
}

}  // namespace
}  // namespace taskboard::worker
