#include "worker/base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/log/log.h"
#include "worker/base/inherited_children.h"
#include "worker/base/task_cgroup.h"
#include "worker/reaper/reaper_protocol.h"

namespace taskboard::worker {
namespace {

namespace protocol = reaper;

// The descriptor the reaper writes its status line to.
constexpr int kReaperStatusFd = 3;

// Owns one file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

absl::Status SpawnError(int error, const std::string& program) {
  const std::string message = absl::StrCat("cannot run '", program, "': ", ErrnoText(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(absl::StrCat(message, " (is it executable?)"));
    default:
      return absl::InternalError(message);
  }
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// The poll() timeout until `when`: at least 0, at most `cap_ms` unless that is
// -1 (no cap; -1 is also poll's "forever" when `when` is infinite).
int PollTimeout(absl::Time when, absl::Time now, int cap_ms) {
  if (when == absl::InfiniteFuture()) return cap_ms;
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(when - now, absl::Milliseconds(1)));
  return static_cast<int>(std::clamp<int64_t>(ms, 0, cap_ms < 0 ? INT32_MAX : cap_ms));
}

// What posix_spawnp would run for `program`: itself when it holds a '/'
// (resolved in the child's working directory), else the first executable
// regular file of that name in the worker's PATH. The search happens here
// because the reaper execs a path.
absl::StatusOr<std::string> ResolveProgram(const std::string& program) {
  if (absl::StrContains(program, '/')) return program;
  const char* path = getenv("PATH");
  int error = ENOENT;
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/bin:/usr/bin", ':')) {
    std::error_code ec;
    const std::filesystem::path candidate = std::filesystem::absolute(
        std::filesystem::path(std::string(dir.empty() ? "." : dir)) / program, ec);
    struct stat status;
    if (ec || stat(candidate.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) continue;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    error = EACCES;
  }
  return SpawnError(error, program);
}

// The reaper that runs the child, and the bookkeeping of stopping it: SIGTERM
// (the reaper passes it to the agent's group), then after the grace period
// SIGUSR1 (the reaper kills the whole tree), and, should the reaper itself
// not exit (an agent stopped it with SIGSTOP), SIGKILL for the reaper and a
// sweep of what it leaves to the worker.
class Child {
 public:
  Child(pid_t pid, const SubprocessOptions& options) : pid_(pid), options_(options) {
    // Without a pidfd (kernel before 5.3) the loop polls for the exit every
    // 20 ms. The raw syscall: Debian 12's <sys/pidfd.h> lacks extern "C".
    pidfd_.Reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  }

  // Whether the reaper has exited; checked without reaping it, so that its
  // pid cannot be reused while we may still signal it.
  bool Exited() {
    if (exited_) return true;
    siginfo_t info{};
    int rc;
    do {
      rc = waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT);
    } while (rc < 0 && errno == EINTR);
    exited_ = rc == 0 && info.si_pid == pid_;
    return exited_;
  }

  void Stop(absl::Time now) {
    if (stage_ != Stage::kRunning) return;
    kill(pid_, SIGTERM);
    stage_ = Stage::kTermSent;
    next_at_ = now + options_.kill_grace;
  }

  void Tick(absl::Time now) {
    if (now < next_at_) return;
    if (stage_ == Stage::kTermSent) {
      kill(pid_, SIGUSR1);
      stage_ = Stage::kEndSent;
      // The reaper's sweep is quick; this is for a reaper that cannot run.
      next_at_ = now + std::max(options_.kill_grace, absl::Seconds(5));
    } else if (stage_ == Stage::kEndSent) {
      kill(pid_, SIGKILL);
      stage_ = Stage::kKilled;
      next_at_ = absl::InfiniteFuture();
    }
  }

  // Reaps the reaper (after Exited, or to give up on it: then it is killed
  // first). Its wait status.
  int Reap(bool kill_first) {
    if (kill_first) kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    ForgetOwnChild(pid_);
    return status;
  }

  int pidfd() const { return exited_ ? -1 : pidfd_.get(); }
  absl::Time next_kill() const { return next_at_; }

 private:
  enum class Stage { kRunning, kTermSent, kEndSent, kKilled };

  const pid_t pid_;
  const SubprocessOptions& options_;
  Fd pidfd_;
  bool exited_ = false;
  Stage stage_ = Stage::kRunning;
  absl::Time next_at_ = absl::InfiniteFuture();
};

// Reads what is available on `fd` into `sink`; closes it at EOF or error.
template <typename Sink>
void ReadAvailable(Fd& fd, Sink&& sink) {
  char buffer[16384];
  while (fd.open()) {
    const ssize_t n = read(fd.get(), buffer, sizeof(buffer));
    if (n > 0) {
      sink(absl::string_view(buffer, static_cast<size_t>(n)));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      fd.Close();
    }
  }
}

// The reaper's last word (reaper_protocol.h).
struct ReaperReport {
  std::optional<int> wait_status;  // the agent's
  std::optional<int> exec_errno;
  std::string error;
};

std::optional<ReaperReport> ParseReaperReport(absl::string_view text) {
  const size_t newline = text.find('\n');
  if (newline == absl::string_view::npos) return std::nullopt;  // killed mid-write, or silent
  const absl::string_view line = text.substr(0, newline);
  ReaperReport report;
  int number = 0;
  if (absl::StartsWith(line, protocol::kStatusLine) &&
      absl::SimpleAtoi(line.substr(strlen(protocol::kStatusLine)), &number)) {
    report.wait_status = number;
  } else if (absl::StartsWith(line, protocol::kExecErrorLine) &&
             absl::SimpleAtoi(line.substr(strlen(protocol::kExecErrorLine)), &number)) {
    report.exec_errno = number;
  } else if (absl::StartsWith(line, protocol::kErrorLine)) {
    report.error = std::string(line.substr(strlen(protocol::kErrorLine)));
  } else {
    report.error = absl::StrCat("taskboard-reaper said '", line, "'");
  }
  return report;
}

// The status pipe with its write end above the descriptors posix_spawn
// moves, so that dup2 onto kReaperStatusFd is never a no-op that keeps
// FD_CLOEXEC.
bool StatusPipe(Fd& ours, Fd& child) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  ours.Reset(fds[0]);
  child.Reset(fcntl(fds[1], F_DUPFD_CLOEXEC, 10));
  close(fds[1]);
  return child.open();
}

}  // namespace

absl::StatusOr<std::string> FindReaper() {
  static const absl::StatusOr<std::string>* const found = [] {
    std::vector<std::filesystem::path> candidates;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(self.parent_path() / "taskboard-reaper");
#ifdef TASKBOARD_BUILD_BIN_DIR
    candidates.push_back(std::filesystem::path(TASKBOARD_BUILD_BIN_DIR) / "taskboard-reaper");
#endif
    for (const std::filesystem::path& candidate : candidates) {
      if (access(candidate.c_str(), X_OK) == 0) {
        return new absl::StatusOr<std::string>(candidate.string());
      }
    }
    return new absl::StatusOr<std::string>(absl::FailedPreconditionError(absl::StrCat(
        "taskboard-reaper, which runs every agent and command tool process, is not next to ",
        self.empty() ? std::string("the worker") : self.string(),
        ": install it in the same directory as taskboard-worker")));
  }();
  return *found;
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signal);
}

absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return absl::InvalidArgumentError("no program to run: argv is empty");
  }
  const std::string& program = options.argv[0];
  std::error_code ec;
  if (!options.cwd.empty() && !std::filesystem::is_directory(options.cwd, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot run '", program, "': working directory '",
                                            options.cwd, "' is not a directory"));
  }
  absl::StatusOr<std::string> reaper =
      options.reaper.empty() ? FindReaper() : absl::StatusOr<std::string>(options.reaper);
  if (!reaper.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run '", program, "': ", reaper.status().message()));
  }
  absl::StatusOr<std::string> executable = ResolveProgram(program);
  if (!executable.ok()) return executable.status();
  std::unique_ptr<TaskCgroup> cgroup;
  const std::filesystem::path cgroup_parent =
      options.cgroup_parent.empty() ? DefaultTaskCgroupParent() : options.cgroup_parent;
  if (!cgroup_parent.empty()) {
    absl::StatusOr<std::unique_ptr<TaskCgroup>> made = TaskCgroup::Create(cgroup_parent);
    if (!made.ok()) {
      return absl::InternalError(
          absl::StrCat("cannot run '", program, "': ", made.status().message()));
    }
    cgroup = *std::move(made);
  }

  // stdin is a socket so that writing to a child that stopped reading fails
  // with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in the worker.
  int in[2], out[2], err[2];
  Fd stdin_ours, stdin_child;
  if (options.stdin_fd < 0) {
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
      return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
    }
    stdin_ours.Reset(in[0]);
    stdin_child.Reset(in[1]);
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }
  Fd stdout_ours(out[0]), stdout_child(out[1]);
  if (pipe2(err, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }
  Fd stderr_ours(err[0]), stderr_child(err[1]);
  Fd status_ours, status_child;
  if (!StatusPipe(status_ours, status_child)) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }

  // posix_spawn rather than fork: the worker is multi-threaded (gRPC), and
  // posix_spawn neither copies its address space nor runs atfork handlers.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions,
                                   options.stdin_fd >= 0 ? options.stdin_fd : stdin_child.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_child.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_child.get(), 2);
  posix_spawn_file_actions_adddup2(&actions, status_child.get(), kReaperStatusFd);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (the reaper's; the agent makes its own below it), no
  // blocked signals (the worker blocks SIGTERM/SIGINT for its signal
  // thread), and default dispositions for signals the worker may ignore
  // (SIGPIPE).
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t no_signals, default_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  sigemptyset(&default_signals);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2}) {
    sigaddset(&default_signals, sig);
  }
  posix_spawnattr_setsigdefault(&attr, &default_signals);

  std::vector<std::string> reaper_args = {*reaper,
                                          absl::StrCat(protocol::kStatusFdFlag, kReaperStatusFd),
                                          absl::StrCat(protocol::kExecFlag, *executable)};
  if (cgroup != nullptr) {
    reaper_args.push_back(absl::StrCat(protocol::kCgroupFlag, cgroup->path().string()));
  }
  reaper_args.push_back("--");
  reaper_args.insert(reaper_args.end(), options.argv.begin(), options.argv.end());
  std::vector<char*> argv, envp;
  for (const std::string& arg : reaper_args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  for (const std::string& var : options.env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);

  int spawn_error = 0;
  const pid_t pid = SpawnOwnChild([&]() -> pid_t {
    pid_t spawned = -1;
    spawn_error = posix_spawn(&spawned, reaper->c_str(), &actions, &attr, argv.data(), envp.data());
    return spawn_error == 0 ? spawned : -1;
  });
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawn_error != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': cannot start ", *reaper,
                                            ": ", ErrnoText(spawn_error)));
  }
  stdin_child.Close();
  stdout_child.Close();
  stderr_child.Close();
  status_child.Close();

  Child child(pid, options);
  for (const Fd* fd : {&stdin_ours, &stdout_ours, &stderr_ours, &status_ours}) {
    if (fd->open()) SetNonBlocking(fd->get());
  }
  size_t stdin_offset = 0;
  if (options.stdin_data.empty()) stdin_ours.Close();

  SubprocessResult result;
  std::string stderr_buffer;
  std::string report_text;
  enum class Stop { kNone, kTimeout, kCancel, kOutputCap } stop = Stop::kNone;
  const absl::Time deadline = options.timeout == absl::InfiniteDuration()
                                  ? absl::InfiniteFuture()
                                  : absl::Now() + options.timeout;
  // Once the reaper exits we wait a little for the pipes to reach EOF; they
  // stay open only if the reaper died before ending the agent's tree and
  // something of it is still dying.
  absl::Time pipes_deadline = absl::InfiniteFuture();
  std::optional<ReaperReport> report;
  int reaper_status = 0;
  bool reaped = false;

  auto on_stdout = [&](absl::string_view chunk) {
    if (stop == Stop::kOutputCap) return;
    if (!options.keep_stdout) {
      if (options.on_stdout) options.on_stdout(chunk);
      return;
    }
    if (result.stdout_data.size() + chunk.size() > options.max_stdout_bytes) {
      stop = Stop::kOutputCap;
      child.Stop(absl::Now());
      return;
    }
    result.stdout_data.append(chunk.data(), chunk.size());
    if (options.on_stdout) options.on_stdout(chunk);
  };
  auto on_stderr = [&](absl::string_view chunk) {
    stderr_buffer.append(chunk.data(), chunk.size());
    if (stderr_buffer.size() > 2 * options.stderr_tail_bytes) {
      stderr_buffer.erase(0, stderr_buffer.size() - options.stderr_tail_bytes);
    }
  };
  // After the reaper: its report (written before it exited), then whatever
  // it could not end. A task cgroup catches a process that left the tree; a
  // reaper killed before its report left its tree to the worker.
  auto after_reaper = [&](int status) {
    reaper_status = status;
    reaped = true;
    ReadAvailable(status_ours, [&](absl::string_view chunk) {
      if (report_text.size() < 4096) report_text.append(chunk.data(), chunk.size());
    });
    report = ParseReaperReport(report_text);
    const bool cgroup_had_members = cgroup != nullptr && cgroup->KillAll();
    if (!report.has_value() || cgroup_had_members) KillInheritedChildren();
  };

  while (true) {
    absl::Time now = absl::Now();
    if (!reaped && child.Exited()) {
      after_reaper(child.Reap(/*kill_first=*/false));
      stdin_ours.Close();
      pipes_deadline = now + absl::Seconds(1);
    }
    if (reaped && ((!stdout_ours.open() && !stderr_ours.open()) || now >= pipes_deadline)) break;
    if (!reaped && stop == Stop::kNone) {
      if (options.cancel != nullptr && options.cancel->cancelled()) {
        stop = Stop::kCancel;
      } else if (now >= deadline) {
        stop = Stop::kTimeout;
      }
      if (stop != Stop::kNone) child.Stop(now);
    }
    if (!reaped) child.Tick(now);

    std::vector<pollfd> fds;
    int stdin_index = -1, stdout_index = -1, stderr_index = -1;
    auto watch = [&fds](int fd, short events) {
      fds.push_back({fd, events, 0});
      return static_cast<int>(fds.size()) - 1;
    };
    if (stdin_ours.open()) stdin_index = watch(stdin_ours.get(), POLLOUT);
    if (stdout_ours.open()) stdout_index = watch(stdout_ours.get(), POLLIN);
    if (stderr_ours.open()) stderr_index = watch(stderr_ours.get(), POLLIN);
    bool need_periodic_check = false;
    if (!reaped) {
      if (child.pidfd() >= 0) {
        watch(child.pidfd(), POLLIN);
      } else {
        need_periodic_check = true;
      }
      if (stop == Stop::kNone && options.cancel != nullptr) {
        if (options.cancel->fd() >= 0) {
          watch(options.cancel->fd(), POLLIN);
        } else {
          need_periodic_check = true;
        }
      }
    }
    const absl::Time wake =
        reaped
            ? pipes_deadline
            : std::min(child.next_kill(), stop == Stop::kNone ? deadline : absl::InfiniteFuture());
    if (poll(fds.data(), fds.size(), PollTimeout(wake, now, need_periodic_check ? 20 : -1)) < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      // Never leave it running, or a zombie.
      if (!reaped) after_reaper(child.Reap(/*kill_first=*/true));
      return absl::InternalError(absl::StrCat("waiting for '", program, "': ", ErrnoText(error)));
    }

    if (stdin_index >= 0 && fds[stdin_index].revents != 0) {
      while (stdin_offset < options.stdin_data.size()) {
        const ssize_t n =
            send(stdin_ours.get(), options.stdin_data.data() + stdin_offset,
                 options.stdin_data.size() - stdin_offset, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          stdin_offset += static_cast<size_t>(n);
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          // EAGAIN: the child is not reading yet; anything else (EPIPE): it
          // closed stdin, which is its right.
          if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
          stdin_offset = options.stdin_data.size();
        }
      }
      if (stdin_offset >= options.stdin_data.size()) stdin_ours.Close();
    }
    if (stdout_index >= 0 && fds[stdout_index].revents != 0) ReadAvailable(stdout_ours, on_stdout);
    if (stderr_index >= 0 && fds[stderr_index].revents != 0) ReadAvailable(stderr_ours, on_stderr);
  }
  if (cgroup != nullptr) {
    if (absl::Status removed = cgroup->Remove(); !removed.ok()) {
      log::Warn("could not remove a task's cgroup").With("error", removed.message());
    }
  }

  if (report.has_value() && report->exec_errno.has_value()) {
    return SpawnError(*report->exec_errno, program);
  }
  if (report.has_value() && !report->error.empty()) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", report->error));
  }
  // Without a report the reaper was killed; the agent's tree went with it
  // (KillInheritedChildren), so the agent ended as its reaper did.
  const int status =
      report.has_value() && report->wait_status.has_value() ? *report->wait_status : reaper_status;

  if (stderr_buffer.size() > options.stderr_tail_bytes) {
    stderr_buffer.erase(0, stderr_buffer.size() - options.stderr_tail_bytes);
  }
  result.stderr_tail = std::move(stderr_buffer);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  switch (stop) {
    case Stop::kTimeout:
      result.ending = SubprocessResult::Ending::kTimedOut;
      break;
    case Stop::kCancel:
      result.ending = SubprocessResult::Ending::kCancelled;
      break;
    case Stop::kOutputCap:
      result.ending = SubprocessResult::Ending::kOutputTooLarge;
      break;
    case Stop::kNone:
      result.ending = WIFSIGNALED(status) ? SubprocessResult::Ending::kSignaled
                                          : SubprocessResult::Ending::kExited;
      break;
  }
  return result;
}

}  // namespace taskboard::worker
