#ifndef TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_

// The tools one worker offers, by name: the built-ins (read_file,
// list_files), one per command tool file of its tools directory
// (worker/tools/command_tool.h), and the tools of each MCP server file
// (worker/tools/mcp/mcp_tool.h). An MCP server's tools change when it says
// its list changed (docs/mcp.md#lifetimes), so the registry is guarded by a
// mutex and hands out shared pointers: a call keeps its tool alive while the
// tool set is replaced under it.
//
// Thread-safe.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/command_tool.h"
#include "worker/tools/mcp/mcp_client.h"
#include "worker/tools/tool.h"

namespace taskboard::worker {

class ToolRegistry {
 public:
  ToolRegistry() = default;
  // Stops the MCP servers before their tools go.
  ~ToolRegistry();
  ToolRegistry(const ToolRegistry&) = delete;
  ToolRegistry& operator=(const ToolRegistry&) = delete;

  // ALREADY_EXISTS naming both definitions when the name is taken.
  absl::Status Add(std::unique_ptr<Tool> tool);

  // Replaces the tools of `group` (one MCP server: its file's path) with
  // `tools`. A tool whose name another group or a fixed tool holds is left
  // out, with a warning in the log; the names left out.
  std::vector<std::string> ReplaceGroup(const std::string& group,
                                        std::vector<std::unique_ptr<Tool>> tools);

  // Keeps `client` running while the registry lives; stopped first by the
  // destructor.
  void AddMcpClient(std::shared_ptr<McpClient> client);

  // NOT_FOUND listing the offered tools for an unknown name.
  absl::StatusOr<std::shared_ptr<const Tool>> Find(absl::string_view name) const;

  // Every tool's declaration, sorted by name (Hello.tools).
  std::vector<v1::ToolDeclaration> Declarations() const;

  std::vector<std::string> Names() const;

 private:
  struct Entry {
    std::shared_ptr<const Tool> tool;
    // Empty for tools added with Add.
    std::string group;
  };

  std::vector<std::string> NamesLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> tools_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<McpClient>> clients_ ABSL_GUARDED_BY(mu_);
};

struct McpOptions {
  McpClientOptions client;
  // False: MCP server files are read (and checked) but no server is started
  // (tests of the file format).
  bool start = true;
};

// The built-in tools plus every tool file directly in `tools_dir` (none when
// it is empty). Each MCP server is started and listed now, bounded by
// mcp.client.start_timeout; a server that cannot be listed is logged and
// offers no tools until a background retry lists it. Errors: those of
// LoadCommandTools and LoadMcpServerFiles, UNIMPLEMENTED for a Streamable
// HTTP server, and ALREADY_EXISTS when a file reuses a built-in's or another
// file's name.
absl::StatusOr<std::unique_ptr<ToolRegistry>> LoadToolRegistry(
    const std::filesystem::path& tools_dir, const BuiltinToolOptions& builtin_options = {},
    const CommandToolOptions& command_options = {}, const McpOptions& mcp_options = {});

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_
