// list_files {path?, glob?}: the files under a directory of the task's
// working directory, recursively, as {"path", "files": [sorted relative
// paths], "truncated": bool}. `.git` directories are skipped and symlinked
// directories are not followed (a tree with a link to `/` stays finite); a
// symlink is listed when it leads to a regular file inside the task's
// directory, that is when read_file would read it.

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/tool_args.h"
#include "worker/tools/workdir_handle.h"

namespace taskboard::worker {
namespace {

struct CloseDir {
  void operator()(DIR* dir) const { closedir(dir); }
};
using DirStream = std::unique_ptr<DIR, CloseDir>;

// A directory being listed, and its path relative to the listed one ("" or
// "sub/").
struct ListedDirectory {
  DirStream stream;
  std::string prefix;
};

enum class ListedKind { kFile, kDirectory, kSymlink, kOther };

ListedKind KindOfEntry(int dir_fd, const dirent& entry) {
  unsigned char type = entry.d_type;
  if (type == DT_UNKNOWN) {  // some filesystems do not say; ask without following
    struct stat status;
    if (fstatat(dir_fd, entry.d_name, &status, AT_SYMLINK_NOFOLLOW) != 0) return ListedKind::kOther;
    type = S_ISREG(status.st_mode)   ? DT_REG
           : S_ISDIR(status.st_mode) ? DT_DIR
           : S_ISLNK(status.st_mode) ? DT_LNK
                                     : DT_UNKNOWN;
  }
  switch (type) {
    case DT_REG:
      return ListedKind::kFile;
    case DT_DIR:
      return ListedKind::kDirectory;
    case DT_LNK:
      return ListedKind::kSymlink;
    default:
      return ListedKind::kOther;
  }
}

// Whether `relative` (to the task's directory) opens, beneath it, as a
// regular file.
bool OpensAsRegularFile(const WorkdirHandle& workdir, const std::string& relative) {
  absl::StatusOr<OpenedInWorkdir> opened = workdir.Open(relative, O_PATH, "file");
  struct stat status;
  return opened.ok() && fstat(opened->fd.get(), &status) == 0 && S_ISREG(status.st_mode);
}

class ListFilesTool : public Tool {
 public:
  explicit ListFilesTool(const BuiltinToolOptions& options)
      : max_entries_(options.list_files_max_entries), resolver_(options.resolver) {
    declaration_.set_name("list_files");
    declaration_.set_description(absl::StrCat(
        "Lists the files under a directory of the task's working directory, recursively (at most ",
        max_entries_, "; .git is skipped). Returns {path, files, truncated}."));
    declaration_.set_parameters_schema_json(DumpJson(Json::parse(R"json({
      "type": "object",
      "properties": {
        "path": {"type": "string",
                 "description": "Directory relative to the task's working directory (default .)"},
        "glob": {"type": "string",
                 "description": "Shell pattern over paths relative to `path`; * also matches /, e.g. \"*.cc\""}
      },
      "additionalProperties": false})json")));
    declaration_.set_cacheable(true);
    declaration_.set_default_ttl_ms(options.default_ttl_ms);
    declaration_.set_default_scope(v1::CACHE_SCOPE_RUN);
  }

  const v1::ToolDeclaration& declaration() const override { return declaration_; }
  std::string source() const override { return "built-in"; }

  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override {
    absl::StatusOr<Json> args = ParseToolArgs(args_json, {"path", "glob"});
    if (!args.ok()) return args.status();
    absl::StatusOr<std::optional<std::string>> path = OptionalStringArg(*args, "path");
    if (!path.ok()) return path.status();
    absl::StatusOr<std::optional<std::string>> glob = OptionalStringArg(*args, "glob");
    if (!glob.ok()) return glob.status();
    absl::StatusOr<WorkdirHandle> workdir = WorkdirHandle::Open(context.workdir, resolver_);
    if (!workdir.ok()) return workdir.status();
    absl::StatusOr<ListedDirectory> top = OpenDirectory(*workdir, path->value_or("."));
    if (!top.ok()) return top.status();
    // The listed directory relative to the task's; entries' prefixes start empty.
    const std::string listed = std::move(top->prefix);
    top->prefix.clear();

    // Depth first through descriptors: each directory is opened from its
    // parent's descriptor without following symlinks, so a directory swapped
    // for a link mid-listing is skipped, never entered.
    std::vector<std::string> files;
    bool truncated = false;
    std::vector<ListedDirectory> stack;
    stack.push_back(*std::move(top));
    while (!stack.empty() && !truncated) {
      if (context.cancel != nullptr && context.cancel->cancelled()) {
        return absl::CancelledError(absl::StrCat("cancelled: ", context.cancel->reason()));
      }
      DIR* current = stack.back().stream.get();
      errno = 0;
      const dirent* entry = readdir(current);
      if (entry == nullptr) {
        if (errno != 0) {
          return absl::PermissionDeniedError(
              absl::StrCat("cannot list '", listed, "': ", std::generic_category().message(errno)));
        }
        stack.pop_back();
        continue;
      }
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      const std::string relative = stack.back().prefix + name;
      switch (KindOfEntry(dirfd(current), *entry)) {
        case ListedKind::kDirectory: {
          if (name == ".git") continue;
          const int child =
              openat(dirfd(current), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (child < 0) continue;  // unreadable, or swapped for a link since readdir
          DIR* stream = fdopendir(child);
          if (stream == nullptr) {
            close(child);
            continue;
          }
          stack.push_back({DirStream(stream), relative + "/"});
          continue;
        }
        case ListedKind::kSymlink:
          if (!OpensAsRegularFile(*workdir, listed == "." ? relative : listed + "/" + relative)) {
            continue;
          }
          break;
        case ListedKind::kOther:
          continue;
        case ListedKind::kFile:
          break;
      }
      if (glob->has_value() && fnmatch((*glob)->c_str(), relative.c_str(), 0) != 0) continue;
      if (files.size() == max_entries_) {
        truncated = true;
        break;
      }
      files.push_back(relative);
    }
    std::sort(files.begin(), files.end());
    return DumpJson({{"path", listed}, {"files", files}, {"truncated", truncated}});
  }

 private:
  // The directory `path` opened beneath the task's directory, as a stream,
  // with its path relative to the task's directory as the prefix.
  static absl::StatusOr<ListedDirectory> OpenDirectory(const WorkdirHandle& workdir,
                                                       const std::string& path) {
    // O_PATH first, to tell "not there" from "not a directory" on the very
    // object that is then listed (reopened through its own handle).
    absl::StatusOr<OpenedInWorkdir> found = workdir.Open(path, O_PATH, "directory");
    if (!found.ok()) return found.status();
    struct stat status;
    if (fstat(found->fd.get(), &status) != 0 || !S_ISDIR(status.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", found->relative, "' is not a directory: use read_file to read a file"));
    }
    const int fd = openat(found->fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* stream = fd >= 0 ? fdopendir(fd) : nullptr;
    if (stream == nullptr) {
      const int error = errno;
      if (fd >= 0) close(fd);
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot list '", found->relative, "': ", std::generic_category().message(error)));
    }
    return ListedDirectory{DirStream(stream), std::move(found->relative)};
  }

  const size_t max_entries_;
  const BeneathResolver resolver_;
  v1::ToolDeclaration declaration_;
};

}  // namespace

std::unique_ptr<Tool> NewListFilesTool(const BuiltinToolOptions& options) {
  return std::make_unique<ListFilesTool>(options);
}

}  // namespace taskboard::worker
