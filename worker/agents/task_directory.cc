#include "worker/agents/task_directory.h"

#include "absl/strings/str_cat.h"
#include "common/task_cwd.h"
#include "worker/tools/workdir_path.h"

namespace taskboard::worker {

absl::Status CheckAssignmentCwd(const v1::Assignment& assignment) {
  if (absl::Status rule = CheckTaskCwd(assignment.cwd()); !rule.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("task '", assignment.task_id(), "': ", rule.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::filesystem::path> TaskDirectory(const v1::Assignment& assignment,
                                                    const std::filesystem::path& root) {
  if (assignment.cwd().empty()) return root;
  if (absl::Status rule = CheckAssignmentCwd(assignment); !rule.ok()) return rule;
  const std::string task = absl::StrCat("task '", assignment.task_id(), "': ");
  absl::StatusOr<WorkdirPath> resolved = ResolveInWorkdir(root, assignment.cwd());
  if (resolved.ok()) return resolved->absolute;
  if (resolved.status().code() == absl::StatusCode::kPermissionDenied) {
    return absl::PermissionDeniedError(absl::StrCat(
        task, "cwd '", assignment.cwd(), "' resolves outside the worker's workspace root ",
        root.empty() ? std::string("(its working directory)") : root.string(),
        " through a symlink; give a directory inside the root"));
  }
  return absl::Status(resolved.status().code(), absl::StrCat(task, "cwd '", assignment.cwd(),
                                                             "': ", resolved.status().message()));
}

}  // namespace taskboard::worker
