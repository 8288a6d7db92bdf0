#ifndef TASKBOARD_COMMON_TASK_CWD_H_
#define TASKBOARD_COMMON_TASK_CWD_H_

// The rule for a task's `cwd` (a flow phase's `cwd`, Assignment.cwd): a
// directory relative to the worker's workspace root (--workspace-root) that
// cannot leave it by its text alone. The scheduler checks it when a flow is
// validated and the worker checks it again before a task runs (defence in
// depth: the worker also resolves symlinks, worker/agents/task_directory.h).
//
// Header-only so that the flow library and the worker share one rule without
// a library of their own.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace taskboard {

// OK for "" (the workspace root itself), "repo", "repo/src", "./repo".
// INVALID_ARGUMENT, with a message saying what to give instead, for an
// absolute path, a `..` component or a NUL byte. The message does not name
// the field: callers prefix it (`phases[1].cwd: ...`).
inline absl::Status CheckTaskCwd(absl::string_view cwd) {
  constexpr absl::string_view kWhatToDo =
      "give a directory relative to the worker's workspace root (--workspace-root), such as "
      "\"repo\" or \"repo/src\", or leave cwd out to work in the root itself";
  if (absl::StrContains(cwd, '\0')) {
    return absl::InvalidArgumentError(absl::StrCat("cwd contains a NUL byte; ", kWhatToDo));
  }
  if (absl::StartsWith(cwd, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("cwd '", cwd, "' is an absolute path; ", kWhatToDo));
  }
  for (absl::string_view component : absl::StrSplit(cwd, '/')) {
    if (component == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "cwd '", cwd, "' contains '..', which could leave the workspace root; ", kWhatToDo));
    }
  }
  return absl::OkStatus();
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_TASK_CWD_H_
