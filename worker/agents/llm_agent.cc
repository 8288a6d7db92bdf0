#include "worker/agents/llm_agent.h"

#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/saturating_add.h"
#include "worker/agents/chat_client.h"
#include "worker/agents/llm_call_spans.h"
#include "worker/agents/llm_prompt.h"
#include "worker/agents/thinking_level.h"
#include "worker/base/secret_environment.h"

namespace taskboard::worker {
namespace {

// How long past a task's timeoutSeconds the agent waits for the scheduler's
// cancel before it stops on its own.
constexpr absl::Duration kSchedulerTimeoutGrace = absl::Seconds(2);

constexpr absl::string_view kDefaultBaseUrl = "https://api.openai.com/v1";

std::string Getenv(const std::string& name) {
  const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
  return value != nullptr ? value : "";
}

// The tool message answering `call`: the result JSON, or {"error": ...} so
// the model can read what went wrong and try something else.
v1::ChatMessage ToolMessage(const v1::ChatToolCall& call,
                            const absl::StatusOr<ToolCallResult>& result) {
  v1::ChatMessage message;
  message.set_role("tool");
  message.set_tool_call_id(call.id());
  message.set_name(call.name());
  message.set_content(result.ok()
                          ? result->result_json
                          : DumpJson(Json{{"error", std::string(result.status().message())}}));
  return message;
}

// The context's gate, with each call priced from the agent file: the
// scheduler bills that price for models its own price table lacks.
class PricedGate : public LlmCallGate {
 public:
  PricedGate(LlmCallGate* inner, const LlmSettings& settings)
      : inner_(inner), settings_(settings) {}

  absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                      absl::Time deadline) override {
    return inner_->Acquire(plan, cancel, deadline);
  }
  void Report(const std::string& grant_id, const LlmCallPlan& plan,
              const LlmCallEnd& end) override {
    LlmCallEnd priced = end;
    priced.cost_usd = CostUsd(settings_, plan.model, end.input_tokens, end.output_tokens);
    inner_->Report(grant_id, plan, priced);
  }

 private:
  LlmCallGate* inner_;
  const LlmSettings& settings_;
};

// One run's state: the conversation so far and what the outcome reports.
class Conversation {
 public:
  Conversation(const AgentDefinition& definition, const v1::Assignment& assignment)
      : definition_(definition), who_(absl::StrCat("llm agent '", definition.name, "'")) {
    outcome_.execution.set_prompt(assignment.prompt());
    outcome_.execution.set_system_prompt(definition.system_prompt);
  }

  const std::string& who() const { return who_; }
  AgentOutcome& outcome() { return outcome_; }

  // Returns the call's cost.
  double AddUsage(const ChatResponse& response, absl::string_view requested_model) {
    v1::Usage& usage = outcome_.usage;
    const std::string model =
        response.model.empty() ? std::string(requested_model) : response.model;
    // Each call's counts are bounded where they are parsed (chat_json.h);
    // the sums saturate, as the scheduler's do.
    usage.set_input_tokens(SaturatingAdd(usage.input_tokens(), response.prompt_tokens));
    usage.set_output_tokens(SaturatingAdd(usage.output_tokens(), response.completion_tokens));
    usage.set_cache_read_tokens(SaturatingAdd(usage.cache_read_tokens(), response.cached_tokens));
    usage.set_turns(usage.turns() + 1);
    usage.set_model(model);
    // Servers often answer with a dated variant ("gpt-4o-2024-08-06") of
    // the requested name; the price table is keyed by what the file asks for.
    double cost = CostUsd(definition_.llm, requested_model, response.prompt_tokens,
                          response.completion_tokens);
    if (cost == 0) {
      cost = CostUsd(definition_.llm, model, response.prompt_tokens, response.completion_tokens);
    }
    usage.set_cost_usd(usage.cost_usd() + cost);
    outcome_.execution.set_turns(usage.turns());
    return cost;
  }

  AgentOutcome Succeed(std::vector<v1::ChatMessage> messages, std::string output) {
    outcome_.success = true;
    outcome_.output = std::move(output);
    return Finish(std::move(messages));
  }

  AgentOutcome Fail(std::vector<v1::ChatMessage> messages, absl::string_view stop_reason,
                    std::string error) {
    outcome_.error = std::move(error);
    outcome_.execution.set_stopped(true);
    outcome_.execution.set_stop_reason(std::string(stop_reason));
    return Finish(std::move(messages));
  }

  AgentOutcome Cancelled(std::vector<v1::ChatMessage> messages, const v1::Assignment& assignment,
                         const CancelToken& cancel) {
    AgentOutcome cancelled = CancelledOutcome(assignment, cancel);
    return Fail(std::move(messages), cancelled.execution.stop_reason(), cancelled.error);
  }

 private:
  AgentOutcome Finish(std::vector<v1::ChatMessage> messages) {
    for (v1::ChatMessage& message : messages) {
      *outcome_.execution.add_messages() = std::move(message);
    }
    return std::move(outcome_);
  }

  const AgentDefinition& definition_;
  const std::string who_;
  AgentOutcome outcome_;
};

}  // namespace

LlmAgent::LlmAgent(AgentDefinition definition, LlmAgentOptions options)
    : definition_(std::move(definition)), options_(std::move(options)) {
  info_.set_name(definition_.name);
  info_.set_description(definition_.description);
  info_.set_type("llm");
  info_.set_model(definition_.model);
  // The key is for this agent's HTTP calls only: out of the environment
  // that agents could read (worker/base/secret_environment.h).
  TakeSecretFromEnvironment(definition_.llm.api_key_env);
}

AgentOutcome LlmAgent::Run(const v1::Assignment& assignment, AgentContext& context) const {
  const CancelToken& cancel = context.cancellation();
  Conversation conversation(definition_, assignment);
  const LlmSettings& settings = definition_.llm;

  ChatRequest request;
  request.messages = InitialMessages(assignment, definition_.system_prompt, settings.prior_work);
  request.model = assignment.model().empty() ? definition_.model : assignment.model();
  // Agent files shared across endpoints (OpenAI, a local server, the fake)
  // leave `model` out and take it from the worker's environment.
  if (request.model.empty()) request.model = Getenv("OPENAI_MODEL");
  if (cancel.cancelled()) {
    return conversation.Cancelled(std::move(request.messages), assignment, cancel);
  }
  if (request.model.empty()) {
    return conversation.Fail(
        std::move(request.messages), "error",
        absl::StrCat(conversation.who(), " has no model: set `model` in its agent file (",
                     definition_.source.string(),
                     "), in the task, or OPENAI_MODEL in the worker's environment"));
  }
  request.tools = OfferedTools(context.ToolDeclarations(), assignment, definition_.tools);
  request.response_schema_json = assignment.output_schema_json();
  request.temperature = settings.temperature;
  request.max_tokens = settings.max_tokens;
  request.reasoning_effort = ReasoningEffort(TaskThinking(assignment, definition_)).value_or("");
  request.reasoning_field = settings.reasoning_field;
  request.stream = settings.stream;

  ChatClientOptions client_options;
  client_options.base_url = settings.base_url;
  if (client_options.base_url.empty()) client_options.base_url = Getenv("OPENAI_BASE_URL");
  if (client_options.base_url.empty()) client_options.base_url = std::string(kDefaultBaseUrl);
  client_options.api_key = SecretOrEnvironment(settings.api_key_env);
  client_options.request_timeout = settings.request_timeout;
  client_options.max_attempts = settings.max_attempts;
  client_options.max_response_bytes = static_cast<size_t>(settings.max_response_bytes);
  client_options.backoff = options_.retry_backoff;
  // Every request waits for the scheduler's grant when it governs LLM calls.
  std::optional<PricedGate> gate;
  if (context.llm_gate() != nullptr) gate.emplace(context.llm_gate(), settings);
  client_options.gate = gate.has_value() ? &*gate : nullptr;
  // A traced attempt: a span per model call, which watches the gate for the
  // grant's wait and answer (worker/agents/llm_call_spans.h).
  std::optional<LlmCallSpans> spans;
  if (context.trace() != nullptr) {
    spans.emplace(*context.trace(), client_options.gate);
    client_options.gate = &*spans;
  }
  const ChatClient client(std::move(client_options));

  absl::Duration timeout = definition_.timeout;
  absl::Duration stop_after = timeout;
  if (assignment.timeout_seconds() > 0 && absl::Seconds(assignment.timeout_seconds()) <= timeout) {
    // The task's own timeout is the scheduler's to enforce: it fails the
    // attempt with its own error and cancels the agent. The agent stops by
    // itself a little later, for a scheduler it cannot reach; stopping at
    // the same instant raced the scheduler's timer for which error stands.
    timeout = absl::Seconds(assignment.timeout_seconds());
    stop_after = timeout + kSchedulerTimeoutGrace;
  }
  const absl::Time deadline = absl::Now() + stop_after;
  auto emit = [&context](absl::string_view delta) { context.EmitOutput(delta); };

  for (int turn = 1; turn <= settings.max_turns; ++turn) {
    if (spans) spans->Begin(request);
    absl::StatusOr<ChatResponse> response = client.Complete(request, &cancel, emit, deadline);
    if (spans && !response.ok()) spans->Finish(response, 0);
    if (!response.ok()) {
      if (cancel.cancelled()) {
        return conversation.Cancelled(std::move(request.messages), assignment, cancel);
      }
      // The last request's timeout is the time left, and curl may report it
      // a hair before the deadline itself.
      const bool out_of_time = absl::IsDeadlineExceeded(response.status()) &&
                               deadline - absl::Now() < absl::Milliseconds(100);
      return conversation.Fail(
          std::move(request.messages), out_of_time ? "timeout" : "error",
          absl::StrCat(conversation.who(), out_of_time ? " timed out after " : "",
                       out_of_time ? absl::FormatDuration(timeout) : "", ": ",
                       response.status().message()));
    }
    const double cost = conversation.AddUsage(*response, request.model);
    if (spans) spans->Finish(response, cost);
    // A streamed answer reached the live output delta by delta already.
    if (!request.stream && !response->message.content().empty()) {
      context.EmitOutput(response->message.content());
    }
    request.messages.push_back(response->message);
    if (response->message.tool_calls().empty()) {
      std::string output = response->message.content();
      return conversation.Succeed(std::move(request.messages), std::move(output));
    }
    for (const v1::ChatToolCall& call : response->message.tool_calls()) {
      if (ConversationLog* log = context.conversation_log()) log->Sync(request.messages, turn);
      absl::StatusOr<ToolCallResult> result = context.CallTool(call.name(), call.arguments_json());
      if (cancel.cancelled()) {
        return conversation.Cancelled(std::move(request.messages), assignment, cancel);
      }
      request.messages.push_back(ToolMessage(call, result));
    }
  }
  return conversation.Fail(
      std::move(request.messages), "max_turns",
      absl::StrCat(conversation.who(), " stopped after ", settings.max_turns,
                   " turns (its maxTurns) with the model still calling tools: raise maxTurns in ",
                   definition_.source.string(), " or ask for a final answer sooner in the prompt"));
}

}  // namespace taskboard::worker
