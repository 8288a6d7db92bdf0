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

#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/cancel_token.h"

namespace taskboard::worker {

// What the session offers one run. Implemented by the session (and by tests).
class AgentContext {
 public:
  virtual ~AgentContext() = default;

  // Live output: command stdout chunks, LLM text deltas. Any bytes (a chunk
  // may end inside a UTF-8 character); the session coalesces and cleans them.
  // Called only from the thread running Agent::Run.
  virtual void EmitOutput(absl::string_view delta) = 0;

  // Fires when the scheduler cancels the task, its lease is revoked, or the
  // worker's drain grace period expires.
  virtual const CancelToken& cancellation() const = 0;

  // Later: CallTool(name, args_json) for the llm agent and `taskboard tool`,
  // going through the scheduler's tool cache.
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

  // Runs one task to completion, failure or cancellation. Never throws;
  // thread-safe (see above).
  virtual AgentOutcome Run(const v1::Assignment& assignment, AgentContext& context) const = 0;
};

// The outcome of a run stopped by its cancellation token: error
// "cancelled: <reason>", execution.stopped with stop_reason "cancelled".
AgentOutcome CancelledOutcome(const v1::Assignment& assignment, const CancelToken& cancellation);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_AGENT_H_
