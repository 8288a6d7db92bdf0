// read_file {path}: one UTF-8 text file inside the task's working directory,
// as {"path": <relative path>, "content": <text>, "bytes": N}.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/utf8.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/tool_args.h"
#include "worker/tools/workdir_handle.h"

namespace taskboard::worker {
namespace {

// Up to `limit` bytes of `fd` from where it stands; the system error's text.
absl::StatusOr<std::string> ReadAtMost(int fd, size_t limit) {
  std::string content;
  char buffer[65536];
  while (content.size() < limit) {
    const ssize_t n = read(fd, buffer, std::min(sizeof(buffer), limit - content.size()));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(std::generic_category().message(errno));
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  return content;
}

class ReadFileTool : public Tool {
 public:
  explicit ReadFileTool(const BuiltinToolOptions& options)
      : max_bytes_(options.read_file_max_bytes), resolver_(options.resolver) {
    declaration_.set_name("read_file");
    declaration_.set_description(
        absl::StrCat("Reads a UTF-8 text file (at most ", max_bytes_,
                     " bytes) inside the task's working directory. Returns {path, content, "
                     "bytes}."));
    declaration_.set_parameters_schema_json(DumpJson(Json::parse(R"({
      "type": "object",
      "properties": {
        "path": {"type": "string",
                 "description": "File path relative to the task's working directory"}
      },
      "required": ["path"],
      "additionalProperties": false})")));
    declaration_.set_cacheable(true);
    declaration_.set_default_ttl_ms(options.default_ttl_ms);
    declaration_.set_default_scope(v1::CACHE_SCOPE_RUN);
    declaration_.add_key_fields("path");
  }

  const v1::ToolDeclaration& declaration() const override { return declaration_; }
  std::string source() const override { return "built-in"; }

  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override {
    absl::StatusOr<Json> args = ParseToolArgs(args_json, {"path"});
    if (!args.ok()) return args.status();
    absl::StatusOr<std::string> path = RequiredStringArg(*args, "path");
    if (!path.ok()) return path.status();
    absl::StatusOr<WorkdirHandle> workdir = WorkdirHandle::Open(context.workdir, resolver_);
    if (!workdir.ok()) return workdir.status();
    // O_NONBLOCK: opening a FIFO an agent left there must not wait for a
    // writer; it is refused below as not a regular file.
    absl::StatusOr<OpenedInWorkdir> file = workdir->Open(*path, O_RDONLY | O_NONBLOCK, "file");
    if (absl::IsNotFound(file.status())) {
      return absl::NotFoundError(
          absl::StrCat(file.status().message(), ": use list_files to see what is there"));
    }
    if (!file.ok()) return file.status();

    // Everything below reads the descriptor: what was opened is what is read.
    struct stat status;
    if (fstat(file->fd.get(), &status) != 0) {
      return absl::InternalError(absl::StrCat("cannot inspect file '", file->relative,
                                              "': ", std::generic_category().message(errno)));
    }
    if (S_ISDIR(status.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", file->relative, "' is a directory: use list_files to list it"));
    }
    if (!S_ISREG(status.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", file->relative, "' is not a regular file"));
    }
    if (static_cast<uintmax_t>(status.st_size) > max_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("file '", file->relative, "' is ", status.st_size,
                       " bytes, over read_file's limit of ", max_bytes_,
                       " bytes: read a smaller file, or use a command tool that "
                       "extracts the part you need"));
    }
    absl::StatusOr<std::string> read = ReadAtMost(file->fd.get(), max_bytes_ + 1);
    if (!read.ok()) {
      return absl::PermissionDeniedError(absl::StrCat("file '", file->relative,
                                                      "' cannot be read (", read.status().message(),
                                                      "): check its permissions"));
    }
    std::string content = *std::move(read);
    if (content.size() > max_bytes_) {  // grew since fstat
      return absl::ResourceExhaustedError(absl::StrCat(
          "file '", file->relative, "' is over read_file's limit of ", max_bytes_, " bytes"));
    }
    if (std::optional<size_t> bad = FindInvalidUtf8(content)) {
      return absl::InvalidArgumentError(absl::StrCat("file '", file->relative,
                                                     "' is not UTF-8 text (invalid byte at offset ",
                                                     *bad, "): read_file returns text only"));
    }
    const size_t bytes = content.size();
    return DumpJson({{"path", file->relative}, {"content", std::move(content)}, {"bytes", bytes}});
  }

 private:
  const size_t max_bytes_;
  const BeneathResolver resolver_;
  v1::ToolDeclaration declaration_;
};

}  // namespace

std::unique_ptr<Tool> NewReadFileTool(const BuiltinToolOptions& options) {
  return std::make_unique<ReadFileTool>(options);
}

}  // namespace taskboard::worker
