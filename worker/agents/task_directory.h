#ifndef TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_
#define TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_

// Where a task works: its `cwd` (from the flow phase), relative to the
// worker's --workdir; the workdir itself when the task names none. Command
// agents run there (unless their file names a cwd) and tools resolve
// relative paths against it.

#include <filesystem>

#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

// Empty when neither the task nor the worker names a directory (the worker's
// own working directory then applies).
std::filesystem::path TaskDirectory(const v1::Assignment& assignment,
                                    const std::filesystem::path& workdir);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_TASK_DIRECTORY_H_
