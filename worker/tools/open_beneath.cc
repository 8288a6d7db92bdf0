#include "worker/tools/open_beneath.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/unix_socket.h"

namespace taskboard::worker {
namespace {

// As the kernel's own limit for one path (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;
// openat2 answers EAGAIN when a rename raced with a `..`; it asks to retry.
constexpr int kOpenat2Attempts = 8;

// Set once openat2 turned out to be missing, so later calls walk at once.
std::atomic<bool> openat2_missing{false};

int Openat2(int dir_fd, absl::string_view relative, int flags) {
  const std::string path = relative.empty() ? std::string(".") : std::string(relative);
  open_how how{};
  // openat2 refuses flags that do not apply (O_NOCTTY with O_PATH: EINVAL),
  // where openat ignores them.
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC | ((flags & O_PATH) != 0 ? 0 : O_NOCTTY));
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < kOpenat2Attempts; ++attempt) {
    // glibc 2.36 has no wrapper; the raw syscall is the documented way.
    const long fd = syscall(SYS_openat2, dir_fd, path.c_str(), &how, sizeof(how));
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != EAGAIN && errno != EINTR) return -errno;
  }
  return -EAGAIN;
}

// Pushes the components of `path` so that the first is popped first; "" and
// "." are dropped.
void PushComponents(absl::string_view path, std::vector<std::string>& pending) {
  std::vector<absl::string_view> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (*part != ".") pending.emplace_back(*part);
  }
}

// Whether the entry `name` of `dir_fd` is a symlink, and if so its target.
bool ReadSymlink(int dir_fd, const std::string& name, std::string& target) {
  char buffer[PATH_MAX];
  const ssize_t n = readlinkat(dir_fd, name.c_str(), buffer, sizeof(buffer));
  if (n < 0 || static_cast<size_t>(n) >= sizeof(buffer)) return false;
  target.assign(buffer, static_cast<size_t>(n));
  return true;
}

// One component at a time: every directory on the way is opened with
// O_NOFOLLOW from the one before, so a symlink is never followed by the
// kernel; the walk reads a symlink and resolves its target itself. `..` goes
// back to the directory the walk came from (a stack of handles), never
// through the kernel's `..`, so it cannot climb above `dir_fd` even when a
// directory is moved away mid-walk.
int Walk(int dir_fd, absl::string_view relative, int flags) {
  if (!relative.empty() && relative.front() == '/') return -EXDEV;
  if (!relative.empty() && relative.back() == '/') flags |= O_DIRECTORY;
  std::vector<UniqueFd> stack;  // directories beneath dir_fd, innermost last
  auto current = [&] { return stack.empty() ? dir_fd : stack.back().get(); };
  std::vector<std::string> pending;  // components still to resolve, next last
  PushComponents(relative, pending);
  int symlinks = 0;
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    if (name == "..") {
      if (stack.empty()) return -EXDEV;
      stack.pop_back();
      continue;
    }
    const bool last = pending.empty();
    const int open_flags =
        (last ? flags : O_PATH | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
    UniqueFd fd(openat(current(), name.c_str(), open_flags));
    int error = fd.valid() ? 0 : errno;
    if (fd.valid() && last && (flags & O_PATH) != 0) {
      // O_PATH | O_NOFOLLOW opens a symlink itself rather than failing.
      struct stat status;
      if (fstat(fd.get(), &status) == 0 && S_ISLNK(status.st_mode)) {
        fd.Reset();
        error = ELOOP;
      }
    }
    if (fd.valid()) {
      if (last) return fd.Release();
      stack.push_back(std::move(fd));
      continue;
    }
    // A symlink fails with ELOOP, or with ENOTDIR when a directory is asked
    // for; so does a file used as a directory, which readlinkat tells apart.
    std::string target;
    if (!ReadSymlink(current(), name, target)) return -error;
    if (++symlinks > kMaxSymlinks) return -ELOOP;
    if (!target.empty() && target.front() == '/') return -EXDEV;
    PushComponents(target, pending);
  }
  // The path ended at a directory of the stack ("", ".", "a/..").
  const int fd = openat(current(), ".", flags | O_CLOEXEC | O_NOCTTY);
  return fd >= 0 ? fd : -errno;
}

}  // namespace

int OpenBeneath(int dir_fd, absl::string_view relative, int flags, BeneathResolver resolver) {
  if (resolver == BeneathResolver::kWalk) return Walk(dir_fd, relative, flags);
  if (resolver == BeneathResolver::kOpenat2) return Openat2(dir_fd, relative, flags);
  if (!openat2_missing.load(std::memory_order_relaxed)) {
    const int fd = Openat2(dir_fd, relative, flags);
    // ENOSYS: a kernel before 5.6; EPERM: a seccomp profile that predates it
    // (Docker's before 20.10). EAGAIN: renames kept racing; the walk does not
    // depend on the kernel's `..`, so it needs no retry.
    if (fd == -ENOSYS || fd == -EPERM) {
      openat2_missing.store(true, std::memory_order_relaxed);
    } else if (fd != -EAGAIN) {
      return fd;
    }
  }
  return Walk(dir_fd, relative, flags);
}

bool KernelHasOpenat2() {
  const int fd = Openat2(AT_FDCWD, ".", O_PATH | O_DIRECTORY);
  if (fd >= 0) close(fd);
  return fd != -ENOSYS && fd != -EPERM;
}

}  // namespace taskboard::worker
