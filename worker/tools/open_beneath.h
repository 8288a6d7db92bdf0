#ifndef TASKBOARD_WORKER_TOOLS_OPEN_BENEATH_H_
#define TASKBOARD_WORKER_TOOLS_OPEN_BENEATH_H_

// Opening a path beneath a directory handle, never leaving the directory
// whatever the path says or what changes while it is resolved. The built-in
// file tools open what an agent names in its task's directory, and the agent
// can rename and re-link that directory at the same time: checking a path
// and then opening it by name (what the tools did before) lets an agent that
// swaps a directory for a symlink to /etc between the two get /etc/passwd.
// Here no symlink is followed by name outside the handle: the kernel resolves
// beneath it (openat2 with RESOLVE_BENEATH), or, where the kernel lacks
// openat2 (Linux before 5.6, or a seccomp profile that refuses it), a walk
// opens one component at a time with O_NOFOLLOW and resolves symlinks itself,
// with the same rules. Linux only.

#include "absl/strings/string_view.h"

namespace taskboard::worker {

enum class BeneathResolver {
  kAuto,     // openat2 where the kernel has it, else the walk
  kOpenat2,  // openat2 only: -ENOSYS (or -EPERM under seccomp) where it is missing
  kWalk,     // the component-by-component walk only (what kAuto falls back to)
};

// Opens `relative` beneath the directory `dir_fd` with `flags` (O_RDONLY,
// O_DIRECTORY, O_NONBLOCK, O_PATH, ...; O_CLOEXEC and O_NOCTTY are added;
// O_CREAT is not supported). An empty path or "." is the directory itself.
// Both resolvers follow the rules of RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS:
// a symlink is followed while its target stays beneath `dir_fd` (a relative
// target, resolved from the link's directory), and `..` while it does not
// climb above `dir_fd`.
//
// Returns a new descriptor, or a negative errno:
//   -EXDEV   the path is absolute, or a `..` or a symlink leads outside
//   -ELOOP   more than 40 symlinks, or a /proc magic link
//   -ENOENT, -ENOTDIR, -EACCES, ...  as open(2) for the file it reaches
//   -EAGAIN  openat2 kept seeing a concurrent rename (kOpenat2 only; kAuto
//            walks instead)
int OpenBeneath(int dir_fd, absl::string_view relative, int flags,
                BeneathResolver resolver = BeneathResolver::kAuto);

// Whether this kernel (and seccomp profile) lets the process call openat2.
bool KernelHasOpenat2();

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_OPEN_BENEATH_H_
