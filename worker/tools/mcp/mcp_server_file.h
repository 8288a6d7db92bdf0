#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_SERVER_FILE_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_SERVER_FILE_H_

// An MCP server file: a file of the worker's tools directory (JSON `.json` or
// YAML `.yaml`/`.yml`, like command tool files) whose `mcp` field declares
// one Model Context Protocol server whose tools the worker offers
// (docs/mcp.md#the-server-file). Unknown fields are errors.
//
//   name             the server's name in errors and logs; default: the
//                    file name without its extension
//   mcp              the server: either stdio
//                      command   program (a relative path containing '/' is
//                                resolved against the tools directory)
//                      args      its arguments
//                      pass_env  names of the worker's environment variables
//                                it gets (worker/base/child_environment.h)
//                    or Streamable HTTP
//                      url       http:// or https://
//                      headers   header name -> name of the worker's
//                                environment variable holding its value
//   prefix           put before each tool's name (default none)
//   allow            the server's tools to offer (default: all)
//   timeout_seconds  per call, integer > 0, default 60
//   tools            per tool (the server's name for it): cacheable (default
//                    false), ttl_ms, scope (run | request | session),
//                    key_fields, as in command tool files

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

struct McpServerDefinition {
  std::string name;
  std::filesystem::path source;
  // stdio: argv[0] is `command` (resolved), then `args`. Empty for HTTP.
  std::vector<std::string> argv;
  std::vector<std::string> pass_env;
  // Streamable HTTP: empty for stdio.
  std::string url;
  // Header name, environment variable name.
  std::vector<std::pair<std::string, std::string>> header_env;
  std::string prefix;
  std::optional<std::vector<std::string>> allow;
  absl::Duration call_timeout = absl::Seconds(60);
  // What `tools` says about caching each tool (only the cache fields set),
  // by the server's name for it; copied into the tool's declaration.
  absl::flat_hash_map<std::string, v1::ToolDeclaration> tools;
};

// Whether a decoded tool file declares an MCP server (has an `mcp` field)
// rather than a command tool.
bool IsMcpServerDocument(const Json& doc);

// Reads the fields of `doc` (the decoded text of `path`). INVALID_ARGUMENT
// naming the file and the field for any problem.
absl::StatusOr<McpServerDefinition> ParseMcpServerDocument(const std::filesystem::path& path,
                                                           const Json& doc);

// Every MCP server file directly in `dir`, sorted by file name. Errors:
// those of ReadToolFiles and ParseMcpServerDocument (worker/tools/command_tool.h).
absl::StatusOr<std::vector<McpServerDefinition>> LoadMcpServerFiles(
    const std::filesystem::path& dir);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_SERVER_FILE_H_
