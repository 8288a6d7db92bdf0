#ifndef TASKBOARD_WORKER_AGENTS_COMMAND_AGENT_H_
#define TASKBOARD_WORKER_AGENTS_COMMAND_AGENT_H_

// The `command` agent: runs a program per task (no shell unless its file says
// `shell: true`) with the task envelope on stdin and TASKBOARD_* variables in
// its environment (worker/agents/task_envelope.h); its stdout is the output,
// exit code 0 means success. Timeouts and cancellation stop its whole process
// group (worker/base/subprocess.h).
//
// Working directory: the task's cwd (relative to the worker's workspace root,
// never outside it: worker/agents/task_directory.h), else the agent file's
// cwd, else the workspace root, else the worker's own.
//
// Environment: not the worker's (which holds its token and API keys) but
// ChildEnvironment(passEnv) (worker/base/child_environment.h), then the
// agent file's `env`, then the TASKBOARD_* variables.
//
// Tools: the environment also carries TASKBOARD_TOOL_SOCKET and
// TASKBOARD_TASK_TOKEN (AgentContext::ToolEnvironment) for `taskboard tool`,
// whose relative paths then resolve against the agent's working directory,
// and PATH starts with the worker's own directory so `taskboard` is found.
//
// Traces: a traced attempt (AgentContext::trace) adds TRACEPARENT (and
// TRACESTATE when there is one), the attempt span's context.

#include <cstddef>
#include <filesystem>

#include "absl/time/time.h"
#include "worker/agents/agent.h"
#include "worker/agents/agent_file.h"

namespace taskboard::worker {

struct CommandAgentOptions {
  // The worker's workspace root (--workspace-root); empty for the worker's own
  // working directory.
  std::filesystem::path workdir;
  // Between SIGTERM and SIGKILL when stopping the process group.
  absl::Duration kill_grace = absl::Seconds(2);
  // More stdout than this fails the task.
  size_t max_output_bytes = 4 << 20;
  // Put first on the agent's PATH: the directory of taskboard-worker, next
  // to which `taskboard` is installed. Empty: PATH is left alone.
  std::filesystem::path bin_dir;
};

class CommandAgent : public Agent {
 public:
  // `definition.type` must be kCommand with a non-empty argv.
  CommandAgent(AgentDefinition definition, CommandAgentOptions options);

  const v1::AgentInfo& info() const override { return info_; }
  std::vector<std::string> allowed_tools() const override { return definition_.tools; }
  AgentOutcome Run(const v1::Assignment& assignment, AgentContext& context) const override;

 private:
  // The context's directory when the session prepared one, else resolved
  // here. Errors: those of TaskDirectory (a cwd that leaves the workspace
  // root).
  absl::StatusOr<std::string> WorkingDirectory(const v1::Assignment& assignment,
                                               const AgentContext& context) const;
  std::vector<std::string> Environment(const v1::Assignment& assignment, AgentContext& context,
                                       const std::string& cwd) const;

  const AgentDefinition definition_;
  const CommandAgentOptions options_;
  v1::AgentInfo info_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_COMMAND_AGENT_H_
