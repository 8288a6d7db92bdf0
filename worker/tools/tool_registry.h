#ifndef TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_

// The tools one worker offers, by name: the built-ins (read_file,
// list_files) plus one per file of its tools directory
// (worker/tools/command_tool.h). Built at start-up and read-only afterwards,
// so any thread may use it without locking.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/command_tool.h"
#include "worker/tools/tool.h"

namespace taskboard::worker {

class ToolRegistry {
 public:
  ToolRegistry() = default;
  ToolRegistry(const ToolRegistry&) = delete;
  ToolRegistry& operator=(const ToolRegistry&) = delete;

  // ALREADY_EXISTS naming both definitions when the name is taken.
  absl::Status Add(std::unique_ptr<Tool> tool);

  // NOT_FOUND listing the offered tools for an unknown name.
  absl::StatusOr<const Tool*> Find(absl::string_view name) const;

  // Every tool's declaration, sorted by name (Hello.tools).
  std::vector<v1::ToolDeclaration> Declarations() const;

  std::vector<std::string> Names() const;

 private:
  absl::flat_hash_map<std::string, std::unique_ptr<Tool>> tools_;
};

// The built-in tools plus every tool file directly in `tools_dir` (none when
// it is empty). Errors: those of LoadCommandTools, and ALREADY_EXISTS when a
// file reuses a built-in's or another file's name.
absl::StatusOr<std::unique_ptr<ToolRegistry>> LoadToolRegistry(
    const std::filesystem::path& tools_dir, const BuiltinToolOptions& builtin_options = {},
    const CommandToolOptions& command_options = {});

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_REGISTRY_H_
