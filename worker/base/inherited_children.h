#ifndef TASKBOARD_WORKER_BASE_INHERITED_CHILDREN_H_
#define TASKBOARD_WORKER_BASE_INHERITED_CHILDREN_H_

// The worker as the subreaper of last resort. Each agent or command-tool
// process runs under a taskboard-reaper of its own (subprocess.h), which ends
// everything that process starts. A process reaches the worker only when its
// reaper died without doing so (an agent that SIGKILLs its reaper, or the
// worker's own last-resort SIGKILL of a stuck reaper): with the worker a
// subreaper it becomes the worker's child instead of init's, and it belongs
// to a task that is over, so the worker kills and reaps it.
//
// The worker tells those from its own children (the reapers) by keeping the
// pids it spawned: SpawnOwnChild registers a pid while a sweep cannot look.
// Linux only.

#include <sys/types.h>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"

namespace taskboard::worker {

// Makes this process the subreaper of its descendants
// (PR_SET_CHILD_SUBREAPER) and turns on KillInheritedChildren. INTERNAL when
// the kernel refuses (before Linux 3.4).
absl::Status BecomeChildSubreaper();

// Runs `spawn`, which starts one child and returns its pid (or -1), so that
// no concurrent KillInheritedChildren takes the new child for an inherited
// one. The pid is the caller's until ForgetOwnChild, which it calls once it
// has reaped the child.
pid_t SpawnOwnChild(absl::FunctionRef<pid_t()> spawn);
void ForgetOwnChild(pid_t pid);

// Kills (SIGKILL) and reaps every child of this process that SpawnOwnChild
// did not start, and what they leave behind, for at most `timeout`. Returns
// how many it reaped. Does nothing unless BecomeChildSubreaper succeeded: in
// any other process the children may be someone else's business.
int KillInheritedChildren(absl::Duration timeout = absl::Seconds(10));

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_INHERITED_CHILDREN_H_
