#ifndef TASKBOARD_WORKER_TOOLS_WORKDIR_PATH_H_
#define TASKBOARD_WORKER_TOOLS_WORKDIR_PATH_H_

// Paths that agents give, confined to the task's working directory: an agent
// (or the LLM behind it) must not read /etc/shadow or ~/.ssh through
// read_file just by asking. ResolveInWorkdir answers with a path, for what
// must be named by path (a task's `cwd`, which the agent's process enters);
// the file tools open through a handle instead (workdir_handle.h), which a
// concurrent rename cannot trick.

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::worker {

struct WorkdirPath {
  // Absolute, with symlinks resolved as far as the path exists.
  std::filesystem::path absolute;
  // Relative to the working directory ("." for the directory itself).
  std::string relative;
};

// `path`, relative to `workdir` or absolute, resolved inside `workdir` (empty:
// the process's working directory). PERMISSION_DENIED when it lies outside:
// through `..`, as an absolute path elsewhere, or through a symlink pointing
// out. INVALID_ARGUMENT for an empty path or one with a NUL byte.
absl::StatusOr<WorkdirPath> ResolveInWorkdir(const std::filesystem::path& workdir,
                                             absl::string_view path);

// INVALID_ARGUMENT for an empty path or one with a NUL byte, which no tool
// accepts.
absl::Status CheckToolPath(absl::string_view path);

// The PERMISSION_DENIED of a path outside the working directory `root`.
absl::Status OutsideWorkdirError(absl::string_view path, const std::filesystem::path& root);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_WORKDIR_PATH_H_
