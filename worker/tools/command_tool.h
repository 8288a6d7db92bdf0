#ifndef TASKBOARD_WORKER_TOOLS_COMMAND_TOOL_H_
#define TASKBOARD_WORKER_TOOLS_COMMAND_TOOL_H_

// Tools defined by files of the worker's tools directory (--tools, env
// TASKBOARD_TOOLS): each runs a program with the call's arguments as JSON on
// stdin, in the task's working directory, and its stdout is the result. The
// program does not inherit the worker's environment (see pass_env).
//
// File format (JSON `.json` or YAML `.yaml`/`.yml`; unknown fields are errors):
//   name             default: the file name without its extension;
//                    1-64 of [A-Za-z0-9_-] (what LLM function calling accepts)
//   description      string
//   parameters       JSON schema of the arguments (an object); default
//                    {"type": "object"}
//   command          argv array, run without a shell; a relative argv[0]
//                    containing '/' is resolved against the tools directory
//   timeout_seconds  integer > 0, default 60
//   cacheable        bool, default false (a command may have side effects)
//   ttl_ms           integer > 0; left out: the scheduler's default
//   scope            run | request | session; left out: the scheduler's default
//   key_fields       argument names forming the cache key (default: all)
//   pass_env         names of the worker's environment variables the command
//                    gets; it gets no others beyond a few basic ones
//                    (worker/base/child_environment.h)
//
// Outcome: exit 0 and stdout that parses as JSON -> that JSON; other stdout ->
// a JSON string of it. A non-zero exit, a signal, the timeout or more than
// max_output_bytes of stdout is a tool error naming the exit code and the
// tail of stderr.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "worker/tools/tool.h"

namespace taskboard::worker {

struct CommandToolOptions {
  // Between SIGTERM and SIGKILL when stopping the process group.
  absl::Duration kill_grace = absl::Seconds(2);
  size_t max_output_bytes = 4 << 20;
};

struct CommandToolDefinition {
  v1::ToolDeclaration declaration;
  // Resolved (see above).
  std::vector<std::string> argv;
  absl::Duration timeout = absl::Seconds(60);
  // Names copied from the worker's environment (`pass_env`).
  std::vector<std::string> pass_env;
  // The file it came from.
  std::filesystem::path source;
};

// The tool files directly in `dir` (sorted by name) with their text.
// Errors: NOT_FOUND when `dir` does not exist; INVALID_ARGUMENT when it is
// not a directory; PERMISSION_DENIED when it or a file cannot be read.
absl::StatusOr<std::vector<std::pair<std::filesystem::path, std::string>>> ReadToolFiles(
    const std::filesystem::path& dir);

// The text of tool file `path` as JSON (its extension picks JSON or YAML).
// INVALID_ARGUMENT naming the file for bad UTF-8 or syntax.
absl::StatusOr<Json> DecodeToolFile(const std::filesystem::path& path, absl::string_view text);

// Parses the text of `path` (whose extension picks the format and whose
// directory anchors a relative argv[0]). INVALID_ARGUMENT naming the file and
// the field for any problem.
absl::StatusOr<CommandToolDefinition> ParseCommandToolFile(const std::filesystem::path& path,
                                                           absl::string_view text);

// Whether `path` has a tool file extension (.json, .yaml, .yml).
bool IsCommandToolFile(const std::filesystem::path& path);

class CommandTool : public Tool {
 public:
  CommandTool(CommandToolDefinition definition, CommandToolOptions options);

  const v1::ToolDeclaration& declaration() const override { return definition_.declaration; }
  std::string source() const override { return definition_.source.string(); }
  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override;

 private:
  const CommandToolDefinition definition_;
  const CommandToolOptions options_;
};

// One CommandTool per tool file directly in `dir` (sorted by file name),
// leaving out MCP server files (worker/tools/mcp/mcp_server_file.h).
// Errors: NOT_FOUND when `dir` does not exist; INVALID_ARGUMENT for a bad
// file (see ParseCommandToolFile) or when `dir` is not a directory;
// PERMISSION_DENIED when a file or the directory cannot be read.
absl::StatusOr<std::vector<std::unique_ptr<Tool>>> LoadCommandTools(
    const std::filesystem::path& dir, const CommandToolOptions& options = {});

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_COMMAND_TOOL_H_
