#include "worker/agents/task_directory.h"

namespace taskboard::worker {

std::filesystem::path TaskDirectory(const v1::Assignment& assignment,
                                    const std::filesystem::path& workdir) {
  if (assignment.cwd().empty()) return workdir;
  const std::filesystem::path cwd(assignment.cwd());
  return cwd.is_absolute() || workdir.empty() ? cwd : workdir / cwd;
}

}  // namespace taskboard::worker
