// taskboard-reaper: runs one agent or command-tool process for the worker and
// ends, with it, every process it started (reaper_protocol.h: arguments,
// signals and the status line).
//
// It is the subreaper (PR_SET_CHILD_SUBREAPER) of the agent's tree: a process
// that leaves its process group or session (setsid) or double-forks still
// has the reaper as its nearest subreaper ancestor, so when its parent dies
// it becomes the reaper's child, not init's. When the agent exits, or the
// worker says stop, the reaper kills its children, reaps them, and looks
// again until it has none; only then does it report and exit. Orphans that
// exit while the agent runs are reaped as they come (no zombies pile up).
//
// A program of its own rather than a fork of the worker: a forked copy of the
// multi-threaded worker could call only async-signal-safe functions for its
// whole life and would keep a copy-on-write image of the worker's memory,
// secrets included, for as long as the task runs.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "worker/reaper/process_tree.h"
#include "worker/reaper/reaper_protocol.h"

namespace {

using taskboard::worker::HasChildren;
using taskboard::worker::KillAndReapChildren;
namespace protocol = taskboard::worker::reaper;

int status_fd = -1;

void Report(const std::string& line) {
  const std::string text = line + "\n";
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(status_fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the worker is gone; nobody to tell
    written += static_cast<size_t>(n);
  }
}

int ReportError(const std::string& what) {
  Report(std::string(protocol::kErrorLine) + what + ": " + strerror(errno));
  return 1;
}

// Moves this process (and so the agent it is about to start) into the cgroup
// at `dir`; the worker made it and kills what is left in it at the end.
bool JoinCgroup(const std::string& dir) {
  const std::string procs = dir + "/cgroup.procs";
  const int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool joined = write(fd, "0", 1) == 1;
  const int error = errno;
  close(fd);
  errno = error;
  return joined;
}

// Kills and reaps every process left in the tree; records the agent's status
// if it had not been reaped yet.
void EndTree(pid_t agent, int& agent_status, bool& agent_reaped) {
  auto record = [&](pid_t pid, int status) {
    if (pid == agent && !agent_reaped) {
      agent_status = status;
      agent_reaped = true;
    }
  };
  while (HasChildren()) {
    KillAndReapChildren(nullptr, record, 1000);
    // A child the /proc scan missed (it arrived mid-scan) is found next
    // round; waitpid(-1) reaps anything already dead meanwhile.
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) record(pid, status);
    if (HasChildren()) {
      timespec delay{0, 1'000'000L};
      nanosleep(&delay, nullptr);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string cgroup;
  const char* exec_path = nullptr;
  int program = -1;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (strncmp(arg, protocol::kStatusFdFlag, strlen(protocol::kStatusFdFlag)) == 0) {
      status_fd = atoi(arg + strlen(protocol::kStatusFdFlag));
    } else if (strncmp(arg, protocol::kExecFlag, strlen(protocol::kExecFlag)) == 0) {
      exec_path = arg + strlen(protocol::kExecFlag);
    } else if (strncmp(arg, protocol::kCgroupFlag, strlen(protocol::kCgroupFlag)) == 0) {
      cgroup = arg + strlen(protocol::kCgroupFlag);
    } else if (strcmp(arg, "--") == 0) {
      program = i + 1;
      break;
    }
  }
  if (status_fd < 0 || exec_path == nullptr || program < 0 || program >= argc) {
    fprintf(stderr,
            "usage: taskboard-reaper --status-fd=N --exec=PATH [--cgroup=DIR] -- ARGV0 [ARGS...]\n"
            "(started by taskboard-worker for each agent process; see "
            "worker/reaper/reaper_protocol.h)\n");
    return 2;
  }
  fcntl(status_fd, F_SETFD, FD_CLOEXEC);  // the agent must not hold it

  // Signals are taken synchronously (sigwaitinfo), so none interrupts the
  // bookkeeping below; the agent gets the mask the worker gave the reaper.
  sigset_t handled, original;
  sigemptyset(&handled);
  for (int sig : {SIGCHLD, SIGUSR1, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&handled, sig);
  sigprocmask(SIG_BLOCK, &handled, &original);

  const pid_t worker = getppid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return ReportError("cannot become a subreaper");
  prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (getppid() != worker) {
    errno = ESRCH;
    return ReportError("the worker exited before the agent started");
  }
  if (access("/proc/self/stat", R_OK) != 0) {
    return ReportError("cannot read /proc, where the agent's processes are found (mount it)");
  }
  if (!cgroup.empty() && !JoinCgroup(cgroup)) {
    return ReportError("cannot join the task's cgroup " + cgroup);
  }

  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) return ReportError("cannot make a pipe");
  const pid_t agent = fork();
  if (agent < 0) return ReportError("cannot fork");
  if (agent == 0) {
    // Its own process group, which the worker's SIGTERM reaches through the
    // reaper: an agent that kills its group (`kill -9 0`) does not kill the
    // reaper with it.
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, &original, nullptr);
    execve(exec_path, argv + program, environ);
    const int error = errno;
    (void)!write(exec_pipe[1], &error, sizeof(error));
    _exit(127);
  }
  setpgid(agent, agent);  // also here: whichever runs first, the group exists before a signal
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(exec_pipe[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(exec_errno))) {
    while (waitpid(agent, nullptr, 0) < 0 && errno == EINTR) {
    }
    Report(std::string(protocol::kExecErrorLine) + std::to_string(exec_errno));
    return 0;
  }

  // Let go of the agent's streams: the worker reads them until EOF, which
  // must come when the agent's tree is gone, not when the reaper exits.
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    for (int fd : {0, 1, 2}) dup2(null, fd);
    if (null > 2) close(null);
  }

  int agent_status = 0;
  bool agent_reaped = false;
  while (!agent_reaped) {
    siginfo_t info;
    const int sig = sigwaitinfo(&handled, &info);
    if (sig == SIGCHLD) {
      // Signals coalesce: reap everything that is dead, the agent and any
      // orphan of its tree.
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == agent) {
          agent_status = status;
          agent_reaped = true;
        }
      }
    } else if (sig == SIGTERM) {
      kill(-agent, SIGTERM);  // the worker asks the agent to stop
    } else if (sig == SIGUSR1) {
      break;  // the worker (or its death) says: end it now
    }
  }
  EndTree(agent, agent_status, agent_reaped);
  Report(std::string(protocol::kStatusLine) + std::to_string(agent_status));
  return 0;
}
