#ifndef TASKBOARD_WORKER_AGENTS_TASK_WORKSPACE_H_
#define TASKBOARD_WORKER_AGENTS_TASK_WORKSPACE_H_

// Where a worker's tasks work. Two modes:
//
//  - Per task (the default): each task gets a fresh, empty directory
//    <data dir>/<worker id>/<lease id>, mode 0700, removed when the task
//    ends. A task sees neither the worker's files nor another task's, and a
//    phase's `cwd` is created inside it.
//  - Shared (--workspace-root): every task works in the operator's directory
//    (a checkout the agents read and edit), in its `cwd` inside it.
//
// Either way the task's directory is checked by TaskDirectory: a cwd that is
// absolute, has `..`, or reaches outside through a symlink fails the task.

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

class TaskWorkspaces {
 public:
  // Every task in `root` (absolute; empty: the worker's working directory).
  static TaskWorkspaces Shared(std::filesystem::path root);

  // A fresh directory per task under <data_dir>/<worker_id>, which is
  // created (0700) and emptied of what an earlier worker with the same id
  // left behind. FAILED_PRECONDITION naming the directory and the flag when
  // it cannot be created.
  static absl::StatusOr<TaskWorkspaces> PerTask(const std::filesystem::path& data_dir,
                                                absl::string_view worker_id);

  // The task's directory, absolute, symlinks resolved. Per task, creates
  // the task's root and the cwd inside it first. Errors: those of
  // TaskDirectory, or FAILED_PRECONDITION when the directory cannot be made.
  absl::StatusOr<std::filesystem::path> Open(const v1::Assignment& assignment) const;

  // For an agent that needs no directory (Agent::needs_directory): checks
  // the task's cwd as Open would, but per task makes nothing (a directory
  // not yet made holds no symlink to resolve) and returns an empty path.
  absl::StatusOr<std::filesystem::path> Check(const v1::Assignment& assignment) const;
  // Per task: removes the task's root and everything in it (best effort; a
  // failure is logged). Shared: nothing.
  void Close(const v1::Assignment& assignment) const;

  bool per_task() const { return per_task_; }
  // The shared root, or the directory holding the per-task ones.
  const std::filesystem::path& root() const { return root_; }

 private:
  TaskWorkspaces(std::filesystem::path root, bool per_task)
      : root_(std::move(root)), per_task_(per_task) {}

  std::filesystem::path TaskRoot(const v1::Assignment& assignment) const;

  std::filesystem::path root_;
  bool per_task_ = false;
};

// `name` with every byte outside [A-Za-z0-9._-] replaced by '_' (and "" or a
// name of dots made "_"): ids chosen by an operator or sent by the scheduler
// become one path component that cannot climb out.
std::string PathComponent(absl::string_view name);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_TASK_WORKSPACE_H_
