#ifndef TASKBOARD_WORKER_TOOLS_BUILTIN_TOOLS_H_
#define TASKBOARD_WORKER_TOOLS_BUILTIN_TOOLS_H_

// The tools every worker offers without a tools directory (docs/agents-command.md):
//   read_file  {path}          one UTF-8 text file of the task's working directory
//   list_files {path?, glob?}  the files under a directory of it
//   flow_state, state_get, state_set, state_delete, state_list: the task's
//                              FlowState and its run's storage (flow_state.h)
// Both open what they are asked for beneath a handle on the directory and
// read through the descriptor they got (workdir_handle.h), so an agent that
// re-links its tree meanwhile cannot point them outside.
// Both are cacheable by default (scope run, 60 s): within a run, tasks
// usually read the same tree; a flow that edits files turns caching off with
// `toolCache.tools.read_file.enabled: false`.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "worker/tools/open_beneath.h"
#include "worker/tools/tool.h"

namespace taskboard::worker {

struct BuiltinToolOptions {
  // read_file refuses larger files.
  size_t read_file_max_bytes = 1 << 20;
  // list_files stops after this many files and says it truncated.
  size_t list_files_max_entries = 1000;
  // The cache declaration of both tools.
  int64_t default_ttl_ms = 60'000;
  // How both open paths beneath the task's directory: openat2 where the
  // kernel has it, else a component-by-component walk. Tests force each.
  BeneathResolver resolver = BeneathResolver::kAuto;
  // flow_state's conversation: at most this many bytes of messages.
  size_t conversation_max_bytes = 64 << 10;
};

std::vector<std::unique_ptr<Tool>> BuiltinTools(const BuiltinToolOptions& options = {});

// One built-in each (worker/tools/read_file_tool.cc, list_files_tool.cc).
std::unique_ptr<Tool> NewReadFileTool(const BuiltinToolOptions& options);
std::unique_ptr<Tool> NewListFilesTool(const BuiltinToolOptions& options);
// The FlowState tools (worker/tools/flow_state_tools.cc), never cacheable.
std::vector<std::unique_ptr<Tool>> FlowStateTools(const BuiltinToolOptions& options);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_BUILTIN_TOOLS_H_
