#ifndef TASKBOARD_WORKER_AGENTS_LLM_AGENT_H_
#define TASKBOARD_WORKER_AGENTS_LLM_AGENT_H_

// The `llm` agent: runs a task as a conversation with an OpenAI-compatible
// chat-completions endpoint (worker/agents/chat_client.h).
//
//   messages = [system: file body] [user: prompt + "## Prior work" section]
//        |
//        v
//   turn 1..maxTurns:  request --> assistant message
//        |                           | no tool calls: success, output = content
//        |                           | tool calls: each through
//        |                           v   AgentContext::CallTool (cache, ledger)
//        +<-------------- one `tool` message per call
//   still calling tools after maxTurns: error, stop reason max_turns
//
// The model is the task's (Assignment.model), else the file's. Content
// deltas are live output. With Assignment.output_schema_json the request
// asks for JSON following it (response_format json_schema). Usage sums the
// turns; cost comes from the file's price table. The conversation, turn
// count and stop reason go into AgentOutcome.execution. The run's deadline
// is timeoutSeconds (or the task's shorter timeout_seconds), retries and
// waits for the scheduler's grants (AgentContext::llm_gate) included.

#include <string>

#include "common/backoff.h"
#include "worker/agents/agent.h"
#include "worker/agents/agent_file.h"

namespace taskboard::worker {

struct LlmAgentOptions {
  // Between retries of a 429 / 5xx answer (Retry-After may ask for more).
  BackoffOptions retry_backoff = {absl::Seconds(1), absl::Seconds(30)};
};

class LlmAgent : public Agent {
 public:
  // `definition.type` must be kLlm.
  explicit LlmAgent(AgentDefinition definition, LlmAgentOptions options = {});

  const v1::AgentInfo& info() const override { return info_; }
  std::vector<std::string> allowed_tools() const override { return definition_.tools; }
  AgentOutcome Run(const v1::Assignment& assignment, AgentContext& context) const override;

 private:
  const AgentDefinition definition_;
  const LlmAgentOptions options_;
  v1::AgentInfo info_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_LLM_AGENT_H_
