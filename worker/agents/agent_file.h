#ifndef TASKBOARD_WORKER_AGENTS_AGENT_FILE_H_
#define TASKBOARD_WORKER_AGENTS_AGENT_FILE_H_

// One agent definition read from a file of the worker's agents directory:
// JSON (`.json`), YAML (`.yaml`, `.yml`), or pi-style Markdown (`.md`) whose
// YAML frontmatter between `---` lines holds the fields and whose body is the
// system prompt.
//
// Fields (camelCase, unknown ones are errors):
//   name            default: the file name without its extension
//   type            command | noop | llm; default: command when `command` is
//                   given, else llm
//   description, model, thinking   strings; tools: array of tool names
//   command         command agents: an argv array (no shell), or, with
//                   `shell: true`, one string run by /bin/sh -c
//   shell           bool, default false
//   env             map of extra environment variables
//   passEnv         names of the worker's environment variables the agent's
//                   program gets (worker/base/child_environment.h); it gets
//                   no others beyond a few basic ones
//   timeoutSeconds  integer > 0, default 600
//   cwd             working directory; relative paths are against the agents
//                   directory (default: the task's cwd, else the worker's)
//   llm agents: baseUrl, apiKeyEnv, maxTurns, temperature, maxTokens,
//                   priorWork, stream, requestTimeoutSeconds, maxAttempts,
//                   pricing (worker/agents/llm_settings.h; docs/agents-llm.md)
// A relative argv[0] containing '/' (`./scout.sh`) is resolved against the
// agents directory; a bare name (`jq`) is looked up in PATH.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "worker/agents/llm_settings.h"

namespace taskboard::worker {

enum class AgentType { kCommand, kNoop, kLlm };

// "command", "noop", "llm".
absl::string_view AgentTypeName(AgentType type);

struct AgentDefinition {
  std::string name;
  AgentType type = AgentType::kCommand;
  std::string description;
  std::string model;
  std::string thinking;
  std::vector<std::string> tools;
  // The Markdown body (empty for JSON/YAML files).
  std::string system_prompt;
  // The argv to execute, resolved: with `shell: true` it is
  // {"/bin/sh", "-c", <command>}.
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  // Names copied from the worker's environment (`passEnv`).
  std::vector<std::string> pass_env;
  absl::Duration timeout = absl::Seconds(600);
  // Absolute, or empty for "the task's cwd, else the worker's".
  std::filesystem::path cwd;
  // type llm only.
  LlmSettings llm;
  // The file this came from (for error messages) and its directory.
  std::filesystem::path source;
};

// Parses the text of `path` (whose extension picks the format and whose
// directory anchors relative paths). INVALID_ARGUMENT naming the file and the
// field for any problem: bad syntax, unknown field, wrong type, missing
// command.
absl::StatusOr<AgentDefinition> ParseAgentFile(const std::filesystem::path& path,
                                               absl::string_view text);

// Reads and parses `path`. NOT_FOUND / PERMISSION_DENIED when it cannot be
// read, else as ParseAgentFile.
absl::StatusOr<AgentDefinition> LoadAgentFile(const std::filesystem::path& path);

// Whether `path` has an agent file extension (.json, .yaml, .yml, .md).
bool IsAgentFile(const std::filesystem::path& path);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_AGENT_FILE_H_
