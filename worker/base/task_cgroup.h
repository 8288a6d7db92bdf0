#ifndef TASKBOARD_WORKER_BASE_TASK_CGROUP_H_
#define TASKBOARD_WORKER_BASE_TASK_CGROUP_H_

// A cgroup v2 of its own for each agent or command-tool process, where the
// worker may make one. It is the strongest way to end everything a task
// started: a process cannot leave its cgroup (moving it takes write access to
// the cgroup.procs of a common ancestor, which the agent lacks), and
// cgroup.kill ends every member at once, forks in flight included. So even a
// process that killed its taskboard-reaper ends with its task. Optional: most
// containers and CI machines give the worker no writable cgroup, and then the
// reapers (subprocess.h) and the worker's last-resort sweep
// (inherited_children.h) end the tree on their own. Linux only.

#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace taskboard::worker {

// Where the worker may make task cgroups: its own cgroup (the "0::" line of
// /proc/self/cgroup, under the cgroup2 mount of /proc/self/mountinfo), when
// that is delegated to it: not the hierarchy's root (whose processes are the
// whole machine's) and writable, checked by making and removing a cgroup in
// it. FAILED_PRECONDITION saying why not otherwise (no cgroup v2, the root,
// read-only).
absl::StatusOr<std::filesystem::path> DelegatedCgroup();

// Where RunSubprocess makes task cgroups when its options name no parent:
// set once by the worker at start-up (from DelegatedCgroup), empty (none)
// until then.
void SetDefaultTaskCgroupParent(const std::filesystem::path& parent);
std::filesystem::path DefaultTaskCgroupParent();

class TaskCgroup {
 public:
  // Makes a new cgroup under `parent` (taskboard-<worker pid>-<n>). INTERNAL
  // naming the directory when mkdir fails.
  static absl::StatusOr<std::unique_ptr<TaskCgroup>> Create(const std::filesystem::path& parent);
  // Kills what is left and removes the directory (see Remove).
  ~TaskCgroup();
  TaskCgroup(const TaskCgroup&) = delete;
  TaskCgroup& operator=(const TaskCgroup&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Kills every process in the cgroup: cgroup.kill where the kernel has it
  // (5.14), else SIGKILL to each pid of cgroup.procs until it reads empty.
  // Returns whether there was any. Killed processes that were reparented to
  // the worker are its zombies: KillInheritedChildren reaps them.
  bool KillAll();

  // Waits up to `timeout` for the cgroup to empty (cgroup.events says
  // "populated 0"), then removes it. FAILED_PRECONDITION when it stays busy.
  absl::Status Remove(absl::Duration timeout = absl::Seconds(5));

 private:
  explicit TaskCgroup(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;
  bool removed_ = false;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_TASK_CGROUP_H_
