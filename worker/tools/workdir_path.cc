#include "worker/tools/workdir_path.h"

#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::worker {

absl::Status CheckToolPath(absl::string_view path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "'path' is empty: give a path relative to the task's "
        "working directory, e.g. \"src/main.cc\"");
  }
  if (absl::StrContains(path, '\0')) {
    return absl::InvalidArgumentError("'path' contains a NUL byte");
  }
  return absl::OkStatus();
}

absl::Status OutsideWorkdirError(absl::string_view path, const std::filesystem::path& root) {
  return absl::PermissionDeniedError(
      absl::StrCat("path '", path, "' is outside the task's working directory ", root.string(),
                   ": tools only reach files inside it; give a path relative to it"));
}

absl::StatusOr<WorkdirPath> ResolveInWorkdir(const std::filesystem::path& workdir,
                                             absl::string_view path) {
  if (absl::Status valid = CheckToolPath(path); !valid.ok()) return valid;
  std::error_code ec;
  std::filesystem::path base = workdir.empty() ? std::filesystem::current_path(ec) : workdir;
  // weakly_canonical resolves the symlinks of the part that exists, so a
  // link inside the directory that points outside is caught below.
  const std::filesystem::path root =
      std::filesystem::weakly_canonical(std::filesystem::absolute(base, ec), ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the task's working directory '", base.string(), "' cannot be resolved: ", ec.message()));
  }
  const std::filesystem::path requested(std::string{path});
  const std::filesystem::path target =
      std::filesystem::weakly_canonical(requested.is_absolute() ? requested : root / requested, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("path '", path, "' cannot be resolved: ", ec.message()));
  }
  const std::filesystem::path relative = target.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return OutsideWorkdirError(path, root);
  return WorkdirPath{target, relative.string()};
}

}  // namespace taskboard::worker
