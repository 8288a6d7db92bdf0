#include "worker/agents/task_workspace.h"

#include <sys/stat.h>

#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "worker/agents/task_directory.h"

namespace taskboard::worker {
namespace {

// mkdir -p, then 0700 on the last component: task directories may hold what
// agents fetched, which other users of the machine have no business reading.
absl::Status MakePrivateDirectory(const std::filesystem::path& dir, absl::string_view what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) {
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", what, " ", dir.string(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

std::string PathComponent(absl::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      c = '_';
    }
  }
  if (out.find_first_not_of('.') == std::string::npos) out = "_";
  return out;
}

TaskWorkspaces TaskWorkspaces::Shared(std::filesystem::path root) {
  return TaskWorkspaces(std::move(root), /*per_task=*/false);
}

absl::StatusOr<TaskWorkspaces> TaskWorkspaces::PerTask(const std::filesystem::path& data_dir,
                                                       absl::string_view worker_id) {
  std::error_code ec;
  const std::filesystem::path root =
      std::filesystem::absolute(data_dir, ec) / PathComponent(worker_id);
  // What a worker with this id left (it was killed mid-task): its tasks were
  // leased again elsewhere, so nothing here is wanted.
  std::filesystem::remove_all(root, ec);
  if (absl::Status made = MakePrivateDirectory(root, "the worker's task directory"); !made.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        made.message(), ": point --data-dir at a writable directory, or give --workspace-root"));
  }
  return TaskWorkspaces(root, /*per_task=*/true);
}

std::filesystem::path TaskWorkspaces::TaskRoot(const v1::Assignment& assignment) const {
  return root_ / PathComponent(assignment.lease_id());
}

absl::StatusOr<std::filesystem::path> TaskWorkspaces::Open(const v1::Assignment& assignment) const {
  if (!per_task_) return TaskDirectory(assignment, root_);
  const std::filesystem::path task_root = TaskRoot(assignment);
  if (absl::Status made = MakePrivateDirectory(task_root, "the task's directory"); !made.ok()) {
    return made;
  }
  // The cwd is checked (no absolute path, no `..`) before anything is made
  // from it; TaskDirectory then resolves what was made.
  absl::StatusOr<std::filesystem::path> directory = TaskDirectory(assignment, task_root);
  if (!directory.ok() || assignment.cwd().empty()) return directory;
  std::error_code ec;
  std::filesystem::create_directories(*directory, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat("task '", assignment.task_id(),
                                                      "': cannot create its cwd ",
                                                      directory->string(), ": ", ec.message()));
  }
  return directory;
}

absl::StatusOr<std::filesystem::path> TaskWorkspaces::Check(
    const v1::Assignment& assignment) const {
  if (!per_task_) return TaskDirectory(assignment, root_);
  if (absl::Status rule = CheckAssignmentCwd(assignment); !rule.ok()) return rule;
  return std::filesystem::path();
}

void TaskWorkspaces::Close(const v1::Assignment& assignment) const {
  if (!per_task_) return;
  std::error_code ec;
  std::filesystem::remove_all(TaskRoot(assignment), ec);
  if (ec) {
    log::Warn("could not remove a task's directory")
        .With("task_id", assignment.task_id())
        .With("directory", TaskRoot(assignment).string())
        .With("error", ec.message());
  }
}

}  // namespace taskboard::worker
