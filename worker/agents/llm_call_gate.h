#ifndef TASKBOARD_WORKER_AGENTS_LLM_CALL_GATE_H_
#define TASKBOARD_WORKER_AGENTS_LLM_CALL_GATE_H_

// What a model call asks before it goes out and tells after it ended, so
// that the scheduler can govern every LLM call of the cluster
// (docs/llm-governance.md): rate limits shared by all workers, one pause
// for everyone after a 429, run budgets. The chat client
// (worker/agents/chat_client.h) asks before every HTTP attempt, retries
// included; the worker session implements it per task
// (worker/session/llm_grants.h); agents that run without a session (tests,
// a worker whose scheduler does not govern) have none, or one that grants
// every call at once.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

// One model call as it is about to be made.
struct LlmCallPlan {
  // The model as the request names it.
  std::string model;
  // The prompt's size in tokens, estimated as request body bytes / 4.
  int64_t estimated_input_tokens = 0;
  // The request's max_tokens; 0 when it sets none.
  int64_t max_output_tokens = 0;
};

// How one call ended.
struct LlmCallEnd {
  // The answer's HTTP status; 0 when there was none (cannot connect,
  // cancelled, timed out).
  int http_status = 0;
  // A 429's Retry-After (zero when none was sent).
  absl::Duration retry_after;
  // The usage a successful answer reported (zero otherwise); cached_tokens
  // is the part of input_tokens the provider served from its prompt cache.
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;
  // The agent file's price of those tokens (the scheduler's price table
  // wins when it has the model).
  double cost_usd = 0;
};

// Thread-safe: the calls of one task may come from any thread.
class LlmCallGate {
 public:
  virtual ~LlmCallGate() = default;

  // Blocks until the call may be made and returns its grant id; "" when the
  // call is ungoverned (the scheduler does not govern, or cannot be reached:
  // the call goes ahead). Errors (the call must not be made):
  //   CANCELLED           `cancel` fired while waiting
  //   DEADLINE_EXCEEDED   `deadline` passed while waiting
  //   FAILED_PRECONDITION / RESOURCE_EXHAUSTED  the scheduler refused the
  //                       call; the message is its text (it names the
  //                       budget and what to do)
  virtual absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                              absl::Time deadline) = 0;

  // After every call Acquire allowed, whatever its outcome (transport errors
  // included: http_status 0), with the grant id Acquire returned ("" too).
  virtual void Report(const std::string& grant_id, const LlmCallPlan& plan,
                      const LlmCallEnd& end) = 0;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_LLM_CALL_GATE_H_
