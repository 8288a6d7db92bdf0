#ifndef TASKBOARD_WORKER_TOOLS_WORKDIR_HANDLE_H_
#define TASKBOARD_WORKER_TOOLS_WORKDIR_HANDLE_H_

// The task's working directory as an open handle, for the built-in file
// tools: every path an agent gives is opened beneath it (open_beneath.h), and
// the tool reads or lists through the descriptor it got, so what it returns
// was inside the directory when it was opened, however the agent renames and
// re-links the tree meanwhile (docs/security.md#agent-confinement).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/unix_socket.h"
#include "worker/tools/open_beneath.h"

namespace taskboard::worker {

struct OpenedInWorkdir {
  UniqueFd fd;
  // The path relative to the working directory, normalized ("." for the
  // directory itself): what results and messages name.
  std::string relative;
};

class WorkdirHandle {
 public:
  // Opens `workdir` (empty: the process's working directory).
  // FAILED_PRECONDITION when it cannot be resolved or opened.
  static absl::StatusOr<WorkdirHandle> Open(const std::filesystem::path& workdir,
                                            BeneathResolver resolver = BeneathResolver::kAuto);

  // Opens `path`, relative to the directory or absolute inside it, with
  // open(2) `flags` (see OpenBeneath). `what` ("file", "directory") names it
  // in messages. Errors:
  //   INVALID_ARGUMENT   an empty path, a NUL byte, a symlink loop or a /proc
  //                      magic link
  //   PERMISSION_DENIED  a path outside the directory (through `..`, an
  //                      absolute path elsewhere, a symlink pointing out), or
  //                      the file's permissions
  //   NOT_FOUND          "WHAT 'RELATIVE' does not exist in the task's working
  //                      directory"
  //   INTERNAL           other system errors, naming them
  absl::StatusOr<OpenedInWorkdir> Open(absl::string_view path, int flags,
                                       absl::string_view what) const;

  int fd() const { return fd_.get(); }
  // Absolute, symlinks resolved.
  const std::filesystem::path& root() const { return root_; }

 private:
  WorkdirHandle(UniqueFd fd, std::filesystem::path root, std::filesystem::path given,
                BeneathResolver resolver)
      : fd_(std::move(fd)), root_(std::move(root)), given_(std::move(given)), resolver_(resolver) {}

  // `path` relative to the directory, lexically; nullopt when it leads out.
  std::optional<std::string> Relative(absl::string_view path) const;

  UniqueFd fd_;
  std::filesystem::path root_;
  // As the worker named it (absolute, normalized, symlinks kept): an agent
  // may give absolute paths under either form.
  std::filesystem::path given_;
  BeneathResolver resolver_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_WORKDIR_HANDLE_H_
