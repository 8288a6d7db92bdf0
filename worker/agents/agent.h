#ifndef TASKBOARD_WORKER_AGENTS_AGENT_H_
#define TASKBOARD_WORKER_AGENTS_AGENT_H_

// The interface every kind of agent implements (command, noop, and later the
// OpenAI-compatible llm agent), and what the worker session lends an agent
// while one of its tasks runs.
//
// One Agent object serves every task of its definition: the session may call
// Run from several slot threads at once, so implementations keep per-run state
// on the stack. A task ends when Run returns; the session never abandons a run,
// so Run must return promptly (within a couple of seconds) once the context's
// cancellation fires.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/llm_call_gate.h"
#include "worker/agents/task_trace.h"
#include "worker/tools/flow_state.h"
#include "worker/base/cancel_token.h"
#include "worker/tools/tool_call_result.h"

namespace taskboard::worker {

// What the session offers one run. Implemented by the session (and by tests).
class AgentContext {
 public:
  virtual ~AgentContext() = default;

  // Live output: command stdout chunks, LLM text deltas. Any bytes (a chunk
  // may end inside a UTF-8 character); the session coalesces and cleans them.
  // Called only from the thread running Agent::Run.
  virtual void EmitOutput(absl::string_view delta) = 0;

  // The task's directory as the session prepared it (TaskWorkspaces::Open):
  // absolute, inside the worker's workspace, already checked. Empty (the
  // default, for test contexts): the agent resolves the task's cwd itself.
  virtual std::filesystem::path directory() const { return {}; }

  // Fires when the scheduler cancels the task, its lease is revoked, or the
  // worker's drain grace period expires.
  virtual const CancelToken& cancellation() const = 0;

  // Tools (docs/semantics.md#tool-cache; worker/session/tool_caller.h). The defaults are
  // those of a context without tools, so test contexts need not care.

  // Calls the worker's tool `name` with `args_json` (a JSON object; ""
  // means {}) as this task, through the scheduler's shared cache; the call
  // is recorded in the run's ledger. Blocks until the result, or CANCELLED
  // once cancellation() fires. Relative paths are against the task's cwd
  // (resolved against the worker's --workdir). Errors: NOT_FOUND (unknown
  // tool), INVALID_ARGUMENT (arguments), CANCELLED, or the tool's own error.
  // Any thread may call it while Run runs. Default: FAILED_PRECONDITION.
  virtual absl::StatusOr<ToolCallResult> CallTool(absl::string_view name,
                                                  absl::string_view args_json);

  // What CallTool reaches, sorted by name (for LLM function calling).
  // Default: none.
  virtual std::vector<v1::ToolDeclaration> ToolDeclarations() const;

  // For agents that run programs: the variables through which those
  // programs call tools as this task with `taskboard tool`
  // (TASKBOARD_TOOL_SOCKET, TASKBOARD_TASK_TOKEN); relative paths in those
  // calls are against `workdir`. They stop working when Run returns. Called
  // from the thread running Run. Default (and a worker that serves no tool
  // socket): none.
  virtual std::vector<std::pair<std::string, std::string>> ToolEnvironment(
      const std::filesystem::path& workdir);

  // The gate every model call of this run passes (worker/agents/
  // llm_call_gate.h): the scheduler's grants when it governs LLM calls. It
  // lives as long as the context. Default (test contexts): none, calls go
  // ahead ungoverned.
  virtual LlmCallGate* llm_gate() { return nullptr; }

  // The attempt's trace (worker/agents/task_trace.h): set when the
  // assignment carried a valid traceparent, and it lives as long as the
  // context. Default (test contexts, untraced assignments): none, and the
  // agent makes no spans and sets no TRACEPARENT.
  virtual const TaskTrace* trace() const { return nullptr; }

  // Where an LLM agent records its turns and messages as it goes, for the
  // flow_state tool (worker/tools/flow_state.h); null (the default, command
  // agents): nothing to record.
  virtual ConversationLog* conversation_log() { return nullptr; }
};

// How one run ended. `error` is set exactly when !success and reads as a
// sentence for users ("command agent 'scout' exited with code 2: ...").
struct AgentOutcome {
  bool success = false;
  std::string output;
  std::string error;
  v1::Usage usage;
  v1::TaskExecution execution;
};

class Agent {
 public:
  virtual ~Agent() = default;

  // What the worker advertises in Hello: name, description, type, model.
  virtual const v1::AgentInfo& info() const = 0;

  // The agent file's `tools`: the most this agent's tasks may call (a
  // phase's `tools` can narrow it, common/tool_allow_list.h). Empty: no
  // limit from the agent.
  virtual std::vector<std::string> allowed_tools() const { return {}; }

  // False for an agent that touches no files and runs nothing (noop): with
  // per-task directories, none is made (and removed) for its tasks; their
  // cwd is still checked.
  virtual bool needs_directory() const { return true; }

  // Runs one task to completion, failure or cancellation. Never throws;
  // thread-safe (see above).
  virtual AgentOutcome Run(const v1::Assignment& assignment, AgentContext& context) const = 0;
};

// The outcome of a run stopped by its cancellation token: error
// "cancelled: <reason>", execution.stopped with stop_reason "cancelled".
AgentOutcome CancelledOutcome(const v1::Assignment& assignment, const CancelToken& cancellation);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_AGENT_H_
