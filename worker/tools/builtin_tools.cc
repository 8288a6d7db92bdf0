#include "worker/tools/builtin_tools.h"

namespace taskboard::worker {

std::vector<std::unique_ptr<Tool>> BuiltinTools(const BuiltinToolOptions& options) {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(NewReadFileTool(options));
  tools.push_back(NewListFilesTool(options));
  for (std::unique_ptr<Tool>& tool : FlowStateTools(options)) tools.push_back(std::move(tool));
  return tools;
}

}  // namespace taskboard::worker
