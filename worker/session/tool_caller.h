#ifndef TASKBOARD_WORKER_SESSION_TOOL_CALLER_H_
#define TASKBOARD_WORKER_SESSION_TOOL_CALLER_H_

// The one path every tool call of every agent takes (docs/semantics.md#lookup-outcomes): an LLM
// agent's function call, a command agent's `taskboard tool` (through
// worker/session/tool_socket_server.h). Per call:
//
//   args -> canonical JSON -> ToolLookup{request_id} ---> scheduler
//                                  ToolDecision <-------'
//     HIT / COALESCED  -> the decision's result, not executed    (cached)
//     MISS             -> execute, observation carries call_id
//     NOT_CACHEABLE    -> execute, observation without call_id
//   -> exactly one ToolObservation (the ledger records cached calls too)
//
// Decisions this file makes (docs/agents-command.md):
// - A task whose Assignment.tool_cache_overrides maps the tool to false does
//   not ask the cache: the call executes as NOT_CACHEABLE, and is observed.
// - A call asks the cache again on the next stream when there is none, or
//   when the stream drops before the decision (a scheduler restart, a
//   reconnect): running the tool uncached meanwhile would run a call the
//   cache holds, or one another worker is running. Only after
//   reconnect_wait without a stream (or decision_timeout without a
//   decision) does it execute uncached (as NOT_CACHEABLE): the scheduler
//   being unreachable never fails a call. The observation is sent on the
//   next stream (ToolLink::SendObservation keeps it).
// - Cancellation while waiting for the decision ends the call with CANCELLED
//   (observed with that error); during execution the tool sees the token.
// - Calls that name no tool of the registry, a tool the task may not call
//   (ToolTask::allowed: the phase's and the agent file's `tools`), or whose
//   arguments are not a JSON object, fail before any lookup and are not
//   observed: no tool ran.
//
// Thread-safe: Call runs on agent threads (many at once), OnDecision on the
// session's reader thread, OnStreamLost when a stream ends. The link is
// called without holding this object's lock, so the session may hold its
// own lock while calling OnDecision / OnStreamLost.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/tool_allow_list.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/task_trace.h"
#include "worker/base/cancel_token.h"
#include "worker/session/worker_metrics.h"
#include "worker/tools/flow_state.h"
#include "worker/tools/tool_call_result.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {

// How the caller reaches the scheduler; implemented by the session (and by
// tests).
class ToolLink {
 public:
  virtual ~ToolLink() = default;
  // Queues a ToolLookup on the current stream; false when there is none.
  virtual bool SendLookup(v1::ConnectRequest lookup) = 0;
  // Queues a ToolObservation on the current stream, or keeps it for the next
  // one.
  virtual void SendObservation(v1::ConnectRequest observation) = 0;
};

// The task a call belongs to.
struct ToolTask {
  std::string task_id;
  std::string lease_id;
  // Where relative paths in arguments point (ToolContext::workdir).
  std::filesystem::path workdir;
  // Assignment.tool_cache_overrides: tool -> may the cache be asked?
  std::map<std::string, bool> cache_overrides;
  // Must be set and outlive the call.
  const CancelToken* cancel = nullptr;
  // The tools the task may call (default: all).
  ToolAllowList allowed;
  // The attempt's trace: each call is an `execute_tool <name>` span under
  // it (docs/observability.md#worker-spans). Null: no span.
  const TaskTrace* trace = nullptr;
  // Where the call runs (ToolContext::flow_state); null: nowhere known.
  // Outlives the call.
  const FlowState* flow_state = nullptr;
};

struct ToolCallerOptions {
  // How long a call waits for its ToolDecision before executing uncached. A
  // COALESCED decision comes only when the identical call lands, so this is
  // long.
  absl::Duration decision_timeout = absl::Minutes(10);
  // How long a call waits for a stream to the scheduler (one to come up, or
  // the next after one ended) before it executes uncached.
  absl::Duration reconnect_wait = absl::Seconds(60);
  // How often a waiting call re-checks its cancel token.
  absl::Duration cancel_poll = absl::Milliseconds(20);
  // Counts every observed call (tool, cached, outcome) and times executions;
  // must outlive the caller. Null: no metrics.
  WorkerMetrics* metrics = nullptr;
};

class ToolCaller {
 public:
  // `registry` and `link` must outlive the caller.
  ToolCaller(const ToolRegistry& registry, ToolLink& link, ToolCallerOptions options = {});
  ToolCaller(const ToolCaller&) = delete;
  ToolCaller& operator=(const ToolCaller&) = delete;

  // Calls `tool_name` with `args_json` (a JSON object; empty means {}) for
  // `task`, blocking until the result. Errors: NOT_FOUND (unknown tool,
  // listing the offered ones), PERMISSION_DENIED (a tool the task may not
  // call, naming the allowed ones), INVALID_ARGUMENT (arguments not a JSON
  // object), CANCELLED (the task's token fired), or the tool's own error
  // (its message reads as a sentence, e.g. "file 'a.txt' does not exist ...").
  absl::StatusOr<ToolCallResult> Call(const ToolTask& task, absl::string_view tool_name,
                                      absl::string_view args_json);

  // The scheduler's answer to a lookup; unknown request ids are ignored (the
  // call gave up waiting).
  void OnDecision(const v1::ToolDecision& decision);

  // The stream ended: calls waiting for a decision ask again on the next
  // stream (or execute uncached after reconnect_wait).
  void OnStreamLost();

  // After a Welcome: a lookup for each call this worker is executing for the
  // cache (it got MISS), so that a restarted scheduler, which forgot the call
  // was in flight, makes identical calls wait for it instead of running
  // them again. A MISS answer gives the call its new call id (reported with
  // its result); other answers change nothing.
  std::vector<v1::ConnectRequest> ReannounceExecutingCalls();

  const ToolRegistry& registry() const { return registry_; }

 private:
  struct Pending {
    bool done = false;
    bool lost = false;
    v1::ToolDecision decision;
  };
  // A call executing under a MISS decision.
  struct Executing {
    std::string task_id;
    std::string lease_id;
    std::string tool_name;
    std::string args_json;
    std::string call_id;  // the latest the scheduler gave it
  };

  // The decision for one call: the scheduler's, or NOT_CACHEABLE when the
  // cache is not asked or cannot answer. CANCELLED when the task's token
  // fires first.
  absl::StatusOr<v1::ToolDecision> Decide(const ToolTask& task, absl::string_view tool_name,
                                          const std::string& args_json);
  // One lookup on the current stream: the decision, or nullopt (with the
  // reason in `why_not`) when there is no stream, it ended first, or no
  // decision came within decision_timeout. CANCELLED as Decide.
  absl::StatusOr<std::optional<v1::ToolDecision>> AskOnce(const ToolTask& task,
                                                          absl::string_view tool_name,
                                                          const std::string& args_json,
                                                          std::string* why_not);
  std::string NextRequestId();

  const ToolRegistry& registry_;
  ToolLink& link_;
  const ToolCallerOptions options_;
  const std::string request_prefix_;

  absl::Mutex mu_;
  uint64_t next_request_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  uint64_t next_executing_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, Executing> executing_ ABSL_GUARDED_BY(mu_);
  // Re-announce request id -> the executing call it is for.
  absl::flat_hash_map<std::string, uint64_t> reannounced_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_TOOL_CALLER_H_
