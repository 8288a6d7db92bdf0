#ifndef TASKBOARD_COMMON_CHILD_PROCESS_H_
#define TASKBOARD_COMMON_CHILD_PROCESS_H_

// A long-running child process (a scheduler or worker started by
// `taskboard dev`, or by an integration test): started in its own process
// group with stdout/stderr appended to a log file, and killed (the whole
// group) when the object goes away, so nothing is left running.

#include <signal.h>
#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace taskboard {

class ChildProcess {
 public:
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Spawn(
      const std::vector<std::string>& argv, const std::string& log_path,
      const std::map<std::string, std::string>& env = {});
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // Sends `sig` to the process (not its group).
  void Signal(int sig);
  // SIGKILL to the whole group, then reaps.
  void KillGroup();
  // Waits up to `timeout_ms` for exit; the exit code (or 128+signal), or
  // nullopt if it is still running.
  std::optional<int> WaitFor(int timeout_ms);
  bool Running();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> exit_code_;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_CHILD_PROCESS_H_
