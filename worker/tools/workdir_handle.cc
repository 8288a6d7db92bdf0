#include "worker/tools/workdir_handle.h"

#include <fcntl.h>

#include <cerrno>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "worker/tools/workdir_path.h"

namespace taskboard::worker {
namespace {

// `relative` (lexically normal) as results name it, or nullopt when it climbs
// out of the directory.
std::optional<std::string> InsideForm(const std::filesystem::path& relative) {
  if (!relative.empty() && *relative.begin() == "..") return std::nullopt;
  std::string text = relative.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  if (text.empty() || text == "./" || text == "/") return ".";
  return text;
}

}  // namespace

absl::StatusOr<WorkdirHandle> WorkdirHandle::Open(const std::filesystem::path& workdir,
                                                  BeneathResolver resolver) {
  std::error_code ec;
  const std::filesystem::path base = workdir.empty() ? std::filesystem::current_path(ec) : workdir;
  const std::filesystem::path given = std::filesystem::absolute(base, ec).lexically_normal();
  const std::filesystem::path root = std::filesystem::canonical(given, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the task's working directory '", base.string(), "' cannot be resolved: ", ec.message()));
  }
  // The directory itself is the worker's (it made it, or the operator named
  // it), so opening it by path is fine; what lies beneath is the agent's.
  UniqueFd fd(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the task's working directory '", root.string(),
                     "' cannot be opened: ", std::generic_category().message(errno)));
  }
  return WorkdirHandle(std::move(fd), root, given, resolver);
}

std::optional<std::string> WorkdirHandle::Relative(absl::string_view path) const {
  const std::filesystem::path requested{std::string(path)};
  if (!requested.is_absolute()) return InsideForm(requested.lexically_normal());
  const std::filesystem::path normal = requested.lexically_normal();
  for (const std::filesystem::path* base : {&root_, &given_}) {
    const std::filesystem::path relative = normal.lexically_relative(*base);
    if (relative.empty()) continue;  // no relative form
    if (std::optional<std::string> inside = InsideForm(relative)) return inside;
  }
  return std::nullopt;
}

absl::StatusOr<OpenedInWorkdir> WorkdirHandle::Open(absl::string_view path, int flags,
                                                    absl::string_view what) const {
  if (absl::Status valid = CheckToolPath(path); !valid.ok()) return valid;
  // Lexically first: `../x` and `/etc/passwd` are refused without a look at
  // the disk. What is opened is the path as given (an absolute one made
  // relative), so that `link/..` means what the kernel says it means.
  std::optional<std::string> relative = Relative(path);
  if (!relative.has_value()) return OutsideWorkdirError(path, root_);
  const absl::string_view opened = path.front() == '/' ? absl::string_view(*relative) : path;
  const int fd = OpenBeneath(fd_.get(), opened, flags, resolver_);
  if (fd >= 0) return OpenedInWorkdir{UniqueFd(fd), *std::move(relative)};
  switch (-fd) {
    case EXDEV:
      return OutsideWorkdirError(path, root_);
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(
          absl::StrCat(what, " '", *relative, "' does not exist in the task's working directory"));
    case ELOOP:
      return absl::InvalidArgumentError(
          absl::StrCat("path '", path,
                       "' goes through more than 40 symbolic links or a /proc magic link: tools "
                       "follow neither; give the path of the file itself"));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(
          absl::StrCat(what, " '", *relative, "' cannot be read: check its permissions"));
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(absl::StrCat("path '", path, "' is too long"));
    default:
      return absl::InternalError(absl::StrCat("cannot open ", what, " '", *relative,
                                              "': ", std::generic_category().message(-fd)));
  }
}

}  // namespace taskboard::worker
