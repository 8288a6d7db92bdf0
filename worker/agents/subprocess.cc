#include "worker/agents/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace taskboard::worker {
namespace {

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

// The spawned child and the bookkeeping of stopping it.
class Child {
 public:
  Child(pid_t pid, const SubprocessOptions& options) : pid_(pid), options_(options) {
    // Without a pidfd (kernel before 5.3) the loop polls for the exit every
    // 20 ms. The raw syscall: Debian 12's <sys/pidfd.h> lacks extern "C".
    pidfd_.Reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  }

  // Whether the leader has exited; checked without reaping it, so that its
  // pid (which names the group) cannot be reused before the group is killed.
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

  // SIGTERM to the group now, SIGKILL once the grace period passes (see Tick).
  void Stop(absl::Time now) {
    if (term_sent_) return;
    kill(-pid_, SIGTERM);
    term_sent_ = true;
    kill_at_ = now + options_.kill_grace;
  }

  void Tick(absl::Time now) {
    if (term_sent_ && !kill_sent_ && now >= kill_at_) {
      kill(-pid_, SIGKILL);
      kill_sent_ = true;
    }
  }

  // Kills whatever is left in the group (after the leader exited, or to give
  // up on it), then reaps the leader.
  int KillGroupAndReap() {
    kill(-pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  int pidfd() const { return exited_ ? -1 : pidfd_.get(); }
  absl::Time next_kill() const {
    return term_sent_ && !kill_sent_ ? kill_at_ : absl::InfiniteFuture();
  }

 private:
  const pid_t pid_;
  const SubprocessOptions& options_;
  Fd pidfd_;
  bool exited_ = false;
  bool term_sent_ = false;
  bool kill_sent_ = false;
  absl::Time kill_at_ = absl::InfiniteFuture();
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

}  // namespace

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

  // stdin is a socket so that writing to a child that stopped reading fails
  // with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in the worker.
  int in[2], out[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }
  Fd stdin_ours(in[0]), stdin_child(in[1]);
  if (pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }
  Fd stdout_ours(out[0]), stdout_child(out[1]);
  if (pipe2(err, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot run '", program, "': ", ErrnoText(errno)));
  }
  Fd stderr_ours(err[0]), stderr_child(err[1]);

  // posix_spawn rather than fork: the worker is multi-threaded (gRPC), and
  // posix_spawn neither copies its address space nor runs atfork handlers.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdin_child.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_child.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_child.get(), 2);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (so a stop reaches everything the agent started), no
  // blocked signals (the worker blocks SIGTERM/SIGINT for its signal thread),
  // and default dispositions for signals the worker may ignore (SIGPIPE).
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

  std::vector<char*> argv, envp;
  for (const std::string& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  for (const std::string& var : options.env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int spawn_error =
      posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawn_error != 0) return SpawnError(spawn_error, program);
  stdin_child.Close();
  stdout_child.Close();
  stderr_child.Close();

  Child child(pid, options);
  for (const Fd* fd : {&stdin_ours, &stdout_ours, &stderr_ours}) SetNonBlocking(fd->get());
  size_t stdin_offset = 0;
  if (options.stdin_data.empty()) stdin_ours.Close();

  SubprocessResult result;
  std::string stderr_buffer;
  enum class Stop { kNone, kTimeout, kCancel, kOutputCap } stop = Stop::kNone;
  const absl::Time deadline = options.timeout == absl::InfiniteDuration()
                                  ? absl::InfiniteFuture()
                                  : absl::Now() + options.timeout;
  // Once the leader exits we wait a little for the pipes to reach EOF; a
  // process that escaped the group (setsid) may hold them open forever.
  absl::Time pipes_deadline = absl::InfiniteFuture();
  int status = 0;
  bool reaped = false;

  auto on_stdout = [&](absl::string_view chunk) {
    if (stop == Stop::kOutputCap) return;
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

  while (true) {
    absl::Time now = absl::Now();
    if (!reaped && child.Exited()) {
      status = child.KillGroupAndReap();
      reaped = true;
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
      if (!reaped) child.KillGroupAndReap();  // never leave it running, or a zombie
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
