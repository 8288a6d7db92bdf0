#ifndef TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_
#define TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_

// Where a task works: its `cwd` (from the flow phase), relative to the
// worker's workspace root (--workspace-root, alias --workdir); the root itself
// when the task names none. Command agents run there (unless their file names
// a cwd) and the built-in tools confine paths to it.
//
// The scheduler already refuses flows whose cwd is absolute or has `..`
// (common/task_cwd.h); the worker checks again, and also resolves symlinks, so
// neither a scheduler that skipped the check nor a link inside the root can
// send a task outside it.

#include <filesystem>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

// OK, or INVALID_ARGUMENT naming the task when its cwd breaks CheckTaskCwd
// (absolute, `..`, a NUL byte): the rule by its text alone, nothing resolved.
absl::Status CheckAssignmentCwd(const v1::Assignment& assignment);

// The task's directory, absolute with symlinks resolved; `root` itself (as
// given) when the assignment names no cwd. An empty `root` is the worker's own
// working directory. Errors, each naming the task and the cwd:
// INVALID_ARGUMENT for an absolute cwd or one with `..` (CheckTaskCwd);
// PERMISSION_DENIED when it resolves outside the root (a symlink pointing
// out); FAILED_PRECONDITION when the root cannot be resolved.
absl::StatusOr<std::filesystem::path> TaskDirectory(const v1::Assignment& assignment,
                                                    const std::filesystem::path& root);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_
