#include "worker/process/worker_options.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace taskboard::worker {

std::string DefaultDataDir() {
  if (const char* state = getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
    return absl::StrCat(state, "/taskboard/worker");
  }
  if (const char* home = getenv("HOME"); home != nullptr && home[0] != '\0') {
    return absl::StrCat(home, "/.local/state/taskboard/worker");
  }
  return absl::StrCat("/var/tmp/taskboard-worker-", getuid());
}

}  // namespace taskboard::worker
