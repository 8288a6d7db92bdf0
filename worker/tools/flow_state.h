#ifndef TASKBOARD_WORKER_TOOLS_FLOW_STATE_H_
#define TASKBOARD_WORKER_TOOLS_FLOW_STATE_H_

// What a tool knows about where it runs: the task's FlowState
// (docs/mcp.md#flowstate). Its identity (run, task, root run, parent), the
// turn count and, on request, the conversation so far of an LLM agent, and
// the root run's durable storage, reached through the scheduler
// (RunStateLink; the scheduler's run_storage.h keeps it).
//
// Built-in tools read it from ToolContext::flow_state (flow_state_tools.cc);
// command tools get its identity and the tool socket in their environment
// (Environment()); MCP servers get its identity in the tools/call `_meta`
// (MetaJson()).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/json.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

// How a tool reaches the run storage: the worker's RunState call to the
// scheduler (the session implements it; tests fake it). Thread-safe.
class RunStateLink {
 public:
  virtual ~RunStateLink() = default;
  // The scheduler's answer, or its error as is (RESOURCE_EXHAUSTED naming a
  // limit, FAILED_PRECONDITION for a task that ended, UNAVAILABLE without a
  // leader).
  virtual absl::StatusOr<v1::RunStateResponse> Call(const v1::RunStateRequest& request) = 0;
};

// An LLM agent's conversation as it goes: the agent records, tools read.
// Thread-safe (tools run on other threads: command agents' socket calls).
class ConversationLog {
 public:
  // `messages` is the whole conversation so far (each call passes the same
  // vector grown): the messages past those already recorded are copied.
  void Sync(const std::vector<v1::ChatMessage>& messages, int turn);
  int turn() const;
  // The last `max_messages` messages (oldest first) as JSON objects {role,
  // content, tool_calls?, tool_call_id?, name?}, older ones dropped until
  // the array's JSON fits `max_bytes`; `truncated` says whether any were.
  Json Tail(size_t max_messages, size_t max_bytes, bool* truncated) const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Json> messages_ ABSL_GUARDED_BY(mu_);
  size_t synced_ ABSL_GUARDED_BY(mu_) = 0;
  int turn_ ABSL_GUARDED_BY(mu_) = 0;
};

struct FlowState {
  std::string run_id;
  std::string task_id;
  std::string root_run_id;
  // Empty for a root run.
  std::string parent_run_id;
  std::string lease_id;
  std::string agent;
  int attempt = 0;
  // Null: no storage (a worker without a scheduler, tests).
  RunStateLink* storage = nullptr;
  // Null: not an LLM agent (turn 0, no conversation).
  const ConversationLog* conversation = nullptr;
  // TASKBOARD_TOOL_SOCKET and TASKBOARD_TASK_TOKEN of a grant for this task,
  // so that a command tool can run `taskboard state`; empty without a socket.
  std::vector<std::pair<std::string, std::string>> tool_environment;

  int turn() const { return conversation != nullptr ? conversation->turn() : 0; }
  // {run_id, task_id, root_run_id, parent_run_id, is_child, attempt, agent,
  // turn}.
  Json IdentityJson() const;
  // TASKBOARD_RUN_ID, TASKBOARD_TASK_ID, TASKBOARD_ROOT_RUN_ID,
  // TASKBOARD_PARENT_RUN_ID, TASKBOARD_ATTEMPT, TASKBOARD_TURN and the tool
  // environment: what a command tool's process gets.
  std::vector<std::pair<std::string, std::string>> Environment() const;
  // A RunState request for this task's lease.
  v1::RunStateRequest Request(v1::RunStateRequest::Op op) const;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_FLOW_STATE_H_
