#ifndef TASKBOARD_WORKER_BASE_SUBPROCESS_H_
#define TASKBOARD_WORKER_BASE_SUBPROCESS_H_

// Runs one child process to completion for the command agent and command
// tools: no shell, data on stdin, stdout streamed and capped, the tail of
// stderr kept, a deadline and a cancellation token that both stop it
// (SIGTERM to its process group, then SIGKILL to everything it started after
// a grace period).
//
// The child runs under a taskboard-reaper of its own (worker/reaper), the
// subreaper of everything the child starts: when the child exits or is
// stopped, the reaper kills every process left in its tree, including those
// that called setsid or double-forked, and reaps them, so nothing the agent
// started outlives the task. Where the worker has a delegated cgroup v2
// (task_cgroup.h) the tree also gets a cgroup of its own, which is killed as
// a whole at the end. Everything happens on the calling thread with poll();
// the reaper is always reaped before RunSubprocess returns.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

struct SubprocessOptions {
  // argv[0] without a '/' is looked up in PATH.
  std::vector<std::string> argv;
  // The child's whole environment, as NAME=value strings.
  std::vector<std::string> env;
  // Empty: the worker's own working directory.
  std::string cwd;
  std::string stdin_data;
  // When >= 0, the child's stdin is this descriptor (the caller keeps and
  // writes to the other end of its socket or pipe, for a long-lived child
  // such as an MCP server) and stdin_data is ignored. The caller closes it.
  int stdin_fd = -1;
  absl::Duration timeout = absl::InfiniteDuration();
  // Between SIGTERM and SIGKILL when stopping the group.
  absl::Duration kill_grace = absl::Seconds(2);
  size_t max_stdout_bytes = 4 << 20;
  // False: stdout only goes to on_stdout, is not kept in the result and has
  // no cap (a long-lived child whose caller bounds each message itself).
  bool keep_stdout = true;
  size_t stderr_tail_bytes = 4 << 10;
  // Optional; stops the child like a timeout.
  const CancelToken* cancel = nullptr;
  // Optional; receives each stdout chunk as it arrives (before the cap).
  std::function<void(absl::string_view)> on_stdout;
  // The taskboard-reaper program; empty: FindReaper().
  std::string reaper;
  // Where to make the child's cgroup; empty: DefaultTaskCgroupParent(),
  // which is empty (no cgroup) unless the worker found a delegated one.
  std::filesystem::path cgroup_parent;
};

struct SubprocessResult {
  enum class Ending {
    kExited,          // exit_code is set
    kSignaled,        // killed by term_signal, not by us
    kTimedOut,        // we stopped it at the deadline
    kCancelled,       // we stopped it because the token fired
    kOutputTooLarge,  // we stopped it when stdout passed max_stdout_bytes
  };
  Ending ending = Ending::kExited;
  int exit_code = -1;
  int term_signal = 0;
  // At most max_stdout_bytes.
  std::string stdout_data;
  // The last stderr_tail_bytes of stderr.
  std::string stderr_tail;
};

// Errors (the child never ran): NOT_FOUND when argv[0] or cwd does not exist,
// PERMISSION_DENIED when it is not executable, FAILED_PRECONDITION when
// taskboard-reaper is missing, INTERNAL for other spawn failures (out of
// descriptors or processes, no cgroup), each naming the program.
absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessOptions& options);

// taskboard-reaper next to the running program (build/bin, the images), else
// in the build tree this was compiled in (test binaries live elsewhere).
// FAILED_PRECONDITION saying where to install it when neither exists.
absl::StatusOr<std::string> FindReaper();

// "SIGKILL" for 9; "signal N" for numbers without a name.
std::string SignalName(int signal);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_SUBPROCESS_H_
