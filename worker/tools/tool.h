#ifndef TASKBOARD_WORKER_TOOLS_TOOL_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_H_

// A tool an agent can call: a name, a JSON-schema of its arguments (for LLM
// function calling), a cache declaration the worker sends in Hello
// (docs/semantics.md#cache-rules), and Execute. Agents never call Execute themselves: every
// call goes through the ToolCaller (worker/session/tool_caller.h), which asks
// the scheduler's cache first and records the call in the ledger.
//
// One Tool object serves every task of the worker: Execute may run on many
// threads at once and keeps per-call state on the stack.

#include <algorithm>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

// 1-64 of [A-Za-z0-9_-]: what LLM function calling accepts as a name.
inline bool IsValidToolName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

struct FlowState;  // flow_state.h

// What one call may use besides its arguments.
struct ToolContext {
  // The task's working directory; relative paths in arguments are against
  // it. Empty: the worker's own working directory.
  std::filesystem::path workdir;
  // Fires when the task is cancelled or ends; long calls stop early. Never
  // null when the ToolCaller runs a tool.
  const CancelToken* cancel = nullptr;
  // Where the call runs and the run's storage (flow_state.h); null outside
  // a task (tests).
  const FlowState* flow_state = nullptr;
};

class Tool {
 public:
  virtual ~Tool() = default;

  // Name, description, parameters schema and cache declaration.
  virtual const v1::ToolDeclaration& declaration() const = 0;

  // Where the tool was defined, for error messages ("built-in", a file path).
  virtual std::string source() const = 0;

  // Runs the tool. `args_json` is a JSON object in canonical form. Returns
  // the result as JSON text, or an error whose message reads as a sentence
  // for the agent ("file 'a.txt' does not exist in /work"); the message is
  // also what the ledger records.
  virtual absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                              const ToolContext& context) const = 0;

  const std::string& name() const { return declaration().name(); }
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_H_
