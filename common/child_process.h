#ifndef TASKBOARD_COMMON_CHILD_PROCESS_H_
#define TASKBOARD_COMMON_CHILD_PROCESS_H_

// A long-running child process (a scheduler or worker started by
// `taskboard dev`, or by an integration test): started in its own process
// group with stdout/stderr appended to a log file, and killed (the whole
// group) when the object goes away, so nothing is left running.

#include <signal.h>
#include <sys/types.h>

#include <functional>
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

// Waits until `child` (a server started with `--port-file PATH`) has written
// its port to `port_file`, polling every 20 ms. UNAVAILABLE when the child
// exits first, DEADLINE_EXCEEDED after `timeout_ms`, CANCELLED when `stop`
// (optional) returns true; INTERNAL when the file holds no port.
absl::StatusOr<int> WaitForPortFile(ChildProcess& child, const std::string& port_file,
                                    int timeout_ms, const std::function<bool()>& stop = nullptr);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_CHILD_PROCESS_H_
