// The llm agent's loop against a real HTTP server in this process, with a
// fake context standing in for the worker's tools.

#include "worker/agents/llm_agent.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "common/llm_call_usage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/worker/agents/fake_agent_context.h"
#include "tests/unit/worker/agents/fake_llm_call_gate.h"
#include "tests/unit/worker/agents/scripted_llm_server.h"

namespace taskboard::worker {
namespace {

using ::taskboard::worker::testing::CachedTextReply;
using ::taskboard::worker::testing::ErrorReply;
using ::taskboard::worker::testing::FakeAgentContext;
using ::taskboard::worker::testing::FakeLlmCallGate;
using ::taskboard::worker::testing::ScriptedLlmServer;
using ::taskboard::worker::testing::ScriptedReply;
using ::taskboard::worker::testing::TextReply;
using ::taskboard::worker::testing::ToolCallReply;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A context with one tool, `lookup`, answering {"found": <args>}; calls are
// recorded.
class ToolContext : public FakeAgentContext {
 public:
  absl::StatusOr<ToolCallResult> CallTool(absl::string_view name,
                                          absl::string_view args_json) override {
    absl::MutexLock lock(&mu_);
    calls_.push_back(absl::StrCat(name, " ", args_json));
    if (name != "lookup") return absl::NotFoundError(absl::StrCat("no tool '", name, "'"));
    return ToolCallResult{.result_json = absl::StrCat(R"({"found":)", args_json, "}")};
  }
  std::vector<v1::ToolDeclaration> ToolDeclarations() const override {
    v1::ToolDeclaration lookup;
    lookup.set_name("lookup");
    lookup.set_description("Looks a key up");
    lookup.set_parameters_schema_json(
        R"({"type":"object","properties":{"key":{"type":"string"}}})");
    return {lookup};
  }
  std::vector<std::string> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

AgentDefinition Definition(const ScriptedLlmServer& server) {
  AgentDefinition def;
  def.name = "helper";
  def.type = AgentType::kLlm;
  def.model = "test-model";
  def.system_prompt = "You help.";
  def.source = "/agents/helper.md";
  def.llm.base_url = server.base_url();
  def.llm.api_key_env = "TASKBOARD_TEST_NO_SUCH_KEY";
  def.llm.stream = false;
  def.llm.max_attempts = 2;
  return def;
}

LlmAgent Agent(AgentDefinition def) {
  return LlmAgent(std::move(def),
                  {.retry_backoff = {absl::Milliseconds(1), absl::Milliseconds(5)}});
}

v1::Assignment Task(const std::string& prompt = "Find the answer.") {
  v1::Assignment assignment;
  assignment.set_task_id("t1");
  assignment.set_run_id("r1");
  assignment.set_agent("helper");
  assignment.set_prompt(prompt);
  return assignment;
}

TEST(LlmAgent, PlainAnswer_SucceedsWithContentAndRecord) {
  ScriptedLlmServer server({TextReply("42")});
  ToolContext context;
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, "42");
  EXPECT_EQ(outcome.execution.turns(), 1);
  EXPECT_FALSE(outcome.execution.stopped());
  EXPECT_EQ(outcome.execution.system_prompt(), "You help.");
  EXPECT_EQ(outcome.execution.prompt(), "Find the answer.");
  ASSERT_EQ(outcome.execution.messages_size(), 3);
  EXPECT_EQ(outcome.execution.messages(0).role(), "system");
  EXPECT_EQ(outcome.execution.messages(1).role(), "user");
  EXPECT_EQ(outcome.execution.messages(2).content(), "42");
  const Json sent = server.requests()[0];
  EXPECT_EQ(sent["messages"][0]["content"], "You help.");
  EXPECT_EQ(sent["messages"][1]["content"], "Find the answer.");
  EXPECT_EQ(sent["tools"][0]["function"]["name"], "lookup");
}

TEST(LlmAgent, ToolCall_RoundTripsThroughCallTool) {
  ScriptedLlmServer server(
      {ToolCallReply("call_1", "lookup", R"({"key":"a"})"), TextReply("a is 1")});
  ToolContext context;
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, "a is 1");
  EXPECT_THAT(context.calls(), ElementsAre(R"(lookup {"key":"a"})"));
  ASSERT_EQ(server.requests().size(), 2u);
  const Json second = server.requests()[1]["messages"];
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[2]["role"], "assistant");
  EXPECT_EQ(second[2]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(second[3]["role"], "tool");
  EXPECT_EQ(second[3]["tool_call_id"], "call_1");
  EXPECT_EQ(second[3]["content"], R"({"found":{"key":"a"}})");
  EXPECT_EQ(outcome.execution.turns(), 2);
  EXPECT_EQ(outcome.execution.messages_size(), 5);
}

TEST(LlmAgent, FailingTool_ErrorGoesBackToTheModel) {
  ScriptedLlmServer server({ToolCallReply("c", "missing", "{}"), TextReply("gave up")});
  ToolContext context;
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  const Json tool_message = server.requests()[1]["messages"][3];
  EXPECT_EQ(tool_message["content"], R"({"error":"no tool 'missing'"})");
}

TEST(LlmAgent, ModelNeverStopsCallingTools_FailsAtMaxTurns) {
  ScriptedLlmServer server({ToolCallReply("c", "lookup", R"({"key":"again"})")});
  ToolContext context;
  AgentDefinition def = Definition(server);
  def.llm.max_turns = 3;
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, AllOf(HasSubstr("llm agent 'helper' stopped after 3 turns"),
                                   HasSubstr("raise maxTurns")));
  EXPECT_TRUE(outcome.execution.stopped());
  EXPECT_EQ(outcome.execution.stop_reason(), "max_turns");
  EXPECT_EQ(outcome.execution.turns(), 3);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(context.calls().size(), 3u);
}

TEST(LlmAgent, Streaming_DeltasReachLiveOutput) {
  ScriptedReply stream;
  stream.sse_chunks = {R"({"choices":[{"index":0,"delta":{"content":"part one, "}}]})",
                       R"({"choices":[{"index":0,"delta":{"content":"part two"}}]})",
                       R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"};
  ScriptedLlmServer server({stream});
  ToolContext context;
  AgentDefinition def = Definition(server);
  def.llm.stream = true;
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.output, "part one, part two");
  EXPECT_EQ(context.output(), "part one, part two");
  EXPECT_EQ(context.chunks(), 2);
}

// Each turn's request passes the context's gate; the usage sums the turns'
// cached prompt tokens too.
TEST(LlmAgent, Gate_AskedBeforeEveryRequestAndCachedTokensSummed) {
  ScriptedReply tool_call = ToolCallReply("call_1", "lookup", R"({"key":"a"})", 100, 5);
  Json body = Json::parse(tool_call.body);
  body["usage"]["prompt_tokens_details"] = {{"cached_tokens", 64}};
  tool_call.body = DumpJson(body);
  ScriptedLlmServer server({tool_call, CachedTextReply("a is 1", 140, 6, 128)});
  FakeLlmCallGate gate;
  ToolContext context;
  context.set_llm_gate(&gate);
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(gate.acquired().size(), 2u);
  ASSERT_EQ(gate.reported().size(), 2u);
  EXPECT_EQ(gate.reported()[1].end.cached_tokens, 128);
  EXPECT_EQ(outcome.usage.input_tokens(), 240);
  EXPECT_EQ(outcome.usage.cache_read_tokens(), 192);
}

TEST(LlmAgent, RefusedByTheScheduler_FailsWithItsTextWithoutARequest) {
  ScriptedLlmServer server({TextReply("never")});
  FakeLlmCallGate gate;
  gate.Refuse(absl::FailedPreconditionError("run r1 is over its budget of $5.00"));
  ToolContext context;
  context.set_llm_gate(&gate);
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error,
              AllOf(HasSubstr("llm agent 'helper'"),
                    HasSubstr("the scheduler refused the call: run r1 is over its budget")));
  EXPECT_EQ(outcome.execution.stop_reason(), "error");
  EXPECT_TRUE(server.requests().empty());
}

TEST(LlmAgent, PriorWork_AppearsInTheUserMessage) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  v1::Assignment task = Task();
  v1::Observation* seen = task.mutable_prior_work()->add_observations();
  seen->set_run_id("r1");
  seen->set_task_id("scan");
  seen->set_tool_name("read_file");
  seen->set_args_json(R"({"path":"a.txt"})");
  seen->set_result_json(R"({"content":"alpha"})");
  ASSERT_TRUE(Agent(Definition(server)).Run(task, context).success);
  const std::string user = server.requests()[0]["messages"][1]["content"];
  EXPECT_THAT(user, AllOf(HasSubstr("Find the answer.\n\n## Prior work\n\n"),
                          HasSubstr("[scan] read_file"), HasSubstr("alpha")));
}

TEST(LlmAgent, PriorWorkOff_LeavesThePromptAlone) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  v1::Assignment task = Task();
  task.mutable_prior_work()->add_observations()->set_tool_name("read_file");
  AgentDefinition def = Definition(server);
  def.llm.prior_work = false;
  ASSERT_TRUE(Agent(def).Run(task, context).success);
  EXPECT_EQ(server.requests()[0]["messages"][1]["content"], "Find the answer.");
}

TEST(LlmAgent, Usage_SumsTurnsAndPricesThem) {
  ScriptedLlmServer server(
      {ToolCallReply("c", "lookup", "{}", 1000, 100), TextReply("x", 2000, 300)});
  ToolContext context;
  AgentDefinition def = Definition(server);
  def.llm.pricing["test-model"] = {.input_per_mtok = 2.0, .output_per_mtok = 10.0};
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.usage.input_tokens(), 3000);
  EXPECT_EQ(outcome.usage.output_tokens(), 400);
  EXPECT_EQ(outcome.usage.turns(), 2);
  EXPECT_EQ(outcome.usage.model(), "test-model");
  // 3000 * $2/M + 400 * $10/M
  EXPECT_DOUBLE_EQ(outcome.usage.cost_usd(), 0.006 + 0.004);
}

TEST(LlmAgent, Gate_ReportsEachCallPricedByTheAgentFile) {
  ScriptedLlmServer server(
      {ToolCallReply("c", "lookup", "{}", 1000, 100), TextReply("x", 2000, 300)});
  FakeLlmCallGate gate;
  ToolContext context;
  context.set_llm_gate(&gate);
  AgentDefinition def = Definition(server);
  def.llm.pricing["test-model"] = {.input_per_mtok = 2.0, .output_per_mtok = 10.0};
  ASSERT_TRUE(Agent(def).Run(Task(), context).success);
  ASSERT_EQ(gate.reported().size(), 2u);
  // 1000 * $2/M + 100 * $10/M, then 2000 * $2/M + 300 * $10/M.
  EXPECT_DOUBLE_EQ(gate.reported()[0].end.cost_usd, 0.002 + 0.001);
  EXPECT_DOUBLE_EQ(gate.reported()[1].end.cost_usd, 0.004 + 0.003);
}

// A server reporting negative or absurd counts: the task's usage and what
// the worker reports for billing are the same bounded numbers, so a run's
// usage equals what it was billed.
TEST(LlmAgent, NegativeOrHugeTokenCounts_UsageEqualsWhatIsReportedForBilling) {
  ScriptedReply negative = ToolCallReply("c", "lookup", "{}", 10, 5);
  Json body = Json::parse(negative.body);
  body["usage"] = {{"prompt_tokens", -1'000'000'000}, {"completion_tokens", -5}};
  negative.body = DumpJson(body);
  ScriptedReply huge = TextReply("x");
  body = Json::parse(huge.body);
  body["usage"] = {{"prompt_tokens", uint64_t{18'446'744'073'709'551'615u}},
                   {"completion_tokens", int64_t{9'223'372'036'854'775'807}}};
  huge.body = DumpJson(body);
  ScriptedLlmServer server({negative, huge});
  FakeLlmCallGate gate;
  ToolContext context;
  context.set_llm_gate(&gate);
  AgentDefinition def = Definition(server);
  def.llm.pricing["test-model"] = {.input_per_mtok = 2.0, .output_per_mtok = 10.0};
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  ASSERT_TRUE(outcome.success) << outcome.error;
  EXPECT_EQ(outcome.usage.input_tokens(), kMaxCallTokens);
  EXPECT_EQ(outcome.usage.output_tokens(), kMaxCallTokens);
  EXPECT_EQ(outcome.usage.turns(), 2);
  // 1e8 * $2/M + 1e8 * $10/M is $1,200: one call is billed at most $1,000.
  EXPECT_DOUBLE_EQ(outcome.usage.cost_usd(), kMaxCallUsd);
  ASSERT_EQ(gate.reported().size(), 2u);
  EXPECT_EQ(gate.reported()[0].end.input_tokens, 0);
  EXPECT_EQ(gate.reported()[0].end.output_tokens, 0);
  EXPECT_DOUBLE_EQ(gate.reported()[0].end.cost_usd, 0);
  EXPECT_EQ(gate.reported()[1].end.input_tokens, kMaxCallTokens);
  EXPECT_DOUBLE_EQ(gate.reported()[1].end.cost_usd, kMaxCallUsd);
}

TEST(LlmAgent, OutputSchema_AsksForJson) {
  ScriptedLlmServer server({TextReply(R"({"tasks":[]})")});
  ToolContext context;
  v1::Assignment task = Task();
  task.set_output_schema_json(R"({"type":"object","required":["tasks"]})");
  ASSERT_TRUE(Agent(Definition(server)).Run(task, context).success);
  const Json format = server.requests()[0]["response_format"];
  EXPECT_EQ(format["type"], "json_schema");
  EXPECT_EQ(format["json_schema"]["schema"]["required"][0], "tasks");
}

TEST(LlmAgent, TaskModel_OverridesTheFile) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  v1::Assignment task = Task();
  task.set_model("other-model");
  ASSERT_TRUE(Agent(Definition(server)).Run(task, context).success);
  EXPECT_EQ(server.requests()[0]["model"], "other-model");
}

TEST(LlmAgent, TaskTools_LimitWhatIsOffered) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  v1::Assignment task = Task();
  task.add_tools("something_else");
  ASSERT_TRUE(Agent(Definition(server)).Run(task, context).success);
  EXPECT_FALSE(server.requests()[0].contains("tools"));
}

TEST(LlmAgent, NoModel_FailsSayingWhereToSetIt) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  AgentDefinition def = Definition(server);
  def.model.clear();
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, HasSubstr("has no model: set `model`"));
  EXPECT_THAT(server.requests(), IsEmpty());
}

TEST(LlmAgent, ServerKeepsFailing_FailsWithTheEndpointError) {
  ScriptedLlmServer server({ErrorReply(500, "boom")});
  ToolContext context;
  AgentOutcome outcome = Agent(Definition(server)).Run(Task(), context);
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, AllOf(HasSubstr("llm agent 'helper': POST "),
                                   HasSubstr("HTTP 500 after 2 attempts: boom")));
  EXPECT_EQ(outcome.execution.stop_reason(), "error");
}

TEST(LlmAgent, TaskTimeout_StopsTheRequest) {
  ScriptedLlmServer server({ScriptedReply{.hang = true}});
  ToolContext context;
  AgentDefinition def = Definition(server);
  def.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  AgentOutcome outcome = Agent(def).Run(Task(), context);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_FALSE(outcome.success);
  EXPECT_THAT(outcome.error, HasSubstr("timed out"));
  EXPECT_EQ(outcome.execution.stop_reason(), "timeout");
}

TEST(LlmAgent, CancelledMidRequest_ReturnsPromptly) {
  ScriptedLlmServer server({ScriptedReply{.hang = true}});
  ToolContext context;
  const LlmAgent agent = Agent(Definition(server));
  AgentOutcome outcome;
  absl::Notification done;
  std::thread runner([&] {
    outcome = agent.Run(Task(), context);
    done.Notify();
  });
  ASSERT_TRUE(server.WaitForRequests(1, absl::Seconds(10)));
  const absl::Time cancelled_at = absl::Now();
  context.cancel().Cancel("user asked");
  const bool returned = done.WaitForNotificationWithTimeout(absl::Seconds(5));
  const absl::Duration took = absl::Now() - cancelled_at;
  runner.join();
  ASSERT_TRUE(returned);
  EXPECT_LT(took, absl::Milliseconds(500));
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "cancelled: user asked");
  EXPECT_EQ(outcome.execution.stop_reason(), "cancelled");
}

// The request the model received for `task`, run by the test agent with
// `configure` applied to its definition.
Json RequestSent(absl::FunctionRef<void(AgentDefinition&)> configure,
                 const v1::Assignment& task = Task()) {
  ScriptedLlmServer server({TextReply("ok")});
  ToolContext context;
  AgentDefinition def = Definition(server);
  configure(def);
  AgentOutcome outcome = Agent(def).Run(task, context);
  EXPECT_TRUE(outcome.success) << outcome.error;
  return server.requests().at(0);
}

// `thinking` (docs/agents-llm.md#thinking): the agent file's level, or the
// phase's from the assignment, reaches the model as reasoning_effort.
TEST(LlmAgent, AgentFileThinking_IsSentAsReasoningEffort) {
  EXPECT_EQ(RequestSent([](AgentDefinition& def) { def.thinking = "medium"; })["reasoning_effort"],
            "medium");
}

TEST(LlmAgent, PhaseThinking_OverridesTheAgentFileAndXhighIsHigh) {
  v1::Assignment task = Task();
  task.set_thinking("xhigh");
  EXPECT_EQ(
      RequestSent([](AgentDefinition& def) { def.thinking = "low"; }, task)["reasoning_effort"],
      "high");
}

TEST(LlmAgent, ThinkingOffOrUnset_SendsNoReasoningEffort) {
  for (const char* level : {"off", ""}) {
    SCOPED_TRACE(level);
    EXPECT_FALSE(RequestSent([&](AgentDefinition& def) {
                   def.thinking = level;
                 }).contains("reasoning_effort"));
  }
}

TEST(LlmAgent, ReasoningField_NamesWhereTheLevelGoes) {
  const Json sent = RequestSent([](AgentDefinition& def) {
    def.thinking = "minimal";
    def.llm.reasoning_field = "reasoning.effort";
  });
  EXPECT_EQ(sent["reasoning"]["effort"], "minimal");
  EXPECT_FALSE(sent.contains("reasoning_effort"));
}

}  // namespace
}  // namespace taskboard::worker
