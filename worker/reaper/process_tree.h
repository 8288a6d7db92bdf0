#ifndef TASKBOARD_WORKER_REAPER_PROCESS_TREE_H_
#define TASKBOARD_WORKER_REAPER_PROCESS_TREE_H_

// Finding and ending a process's children, for a subreaper: what an agent
// starts and leaves behind is handed to the nearest subreaper above it when
// its parent dies, so a subreaper that kills its children, reaps them and
// looks again ends a whole tree, including processes that called setsid or
// double-forked to get away from their process group. Used by
// taskboard-reaper (one per agent process) and by the worker for what reaches
// it (worker/base/inherited_children.h). Linux only: it reads /proc.
//
// No Abseil here: taskboard-reaper is a small program of its own.

#include <sys/types.h>

#include <functional>
#include <vector>

namespace taskboard::worker {

// The pids whose parent is `parent`, from /proc/<pid>/stat (zombies
// included; /proc/<pid>/task/<tid>/children needs CONFIG_PROC_CHILDREN,
// which many kernels lack). Empty when /proc cannot be read.
std::vector<pid_t> ChildrenOf(pid_t parent);

// Whether the calling process has any child, running or a zombie.
bool HasChildren();

// Sends SIGKILL to every child of the calling process that `spare` does not
// keep, reaps it (waitpid on its pid only, so the caller's other children
// keep their exit statuses for whoever waits for them), and looks again:
// each killed child leaves its own children to the caller when the caller is
// a subreaper. Stops when no unspared child is left (true) or after
// `timeout_ms` (false). `on_reaped(pid, wait_status)` is told about each.
bool KillAndReapChildren(const std::function<bool(pid_t)>& spare,
                         const std::function<void(pid_t, int)>& on_reaped, int timeout_ms);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_REAPER_PROCESS_TREE_H_
