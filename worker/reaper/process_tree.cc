#include "worker/reaper/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace taskboard::worker {
namespace {

// The parent pid in /proc/<pid>/stat: the field after the state, after the
// last ')' (the command name in parentheses may itself hold ") ").
pid_t ParentOf(const char* pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%s/stat", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[1024];
  const ssize_t n = read(fd, buffer, sizeof(buffer) - 1);
  close(fd);
  if (n <= 0) return -1;
  buffer[n] = '\0';
  const char* close_paren = strrchr(buffer, ')');
  if (close_paren == nullptr) return -1;
  char state = 0;
  int parent = -1;
  if (sscanf(close_paren + 1, " %c %d", &state, &parent) != 2) return -1;
  return static_cast<pid_t>(parent);
}

void SleepMilliseconds(int ms) {
  timespec delay{0, ms * 1'000'000L};
  while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {
  }
}

}  // namespace

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    if (ParentOf(entry->d_name) == parent) children.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return children;
}

bool HasChildren() {
  siginfo_t info{};
  int rc;
  do {
    rc = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  return rc == 0;  // -1 with ECHILD: none
}

bool KillAndReapChildren(const std::function<bool(pid_t)>& spare,
                         const std::function<void(pid_t, int)>& on_reaped, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    std::vector<pid_t> targets;
    for (pid_t child : ChildrenOf(getpid())) {
      if (!spare || !spare(child)) targets.push_back(child);
    }
    if (targets.empty()) return true;
    for (pid_t child : targets) kill(child, SIGKILL);
    bool reaped_any = false;
    for (pid_t child : targets) {
      int status = 0;
      pid_t rc;
      do {
        rc = waitpid(child, &status, WNOHANG);
      } while (rc < 0 && errno == EINTR);
      if (rc == child) {
        reaped_any = true;
        if (on_reaped) on_reaped(child, status);
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // SIGKILL takes effect at once but exiting is not instant: look again
    // shortly instead of blocking on one pid that may not be ours to wait
    // for any more.
    if (!reaped_any) SleepMilliseconds(2);
  }
}

}  // namespace taskboard::worker
