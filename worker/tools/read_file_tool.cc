// read_file {path}: one UTF-8 text file inside the task's working directory,
// as {"path": <relative path>, "content": <text>, "bytes": N}.

#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/utf8.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/tool_args.h"
#include "worker/tools/workdir_path.h"

namespace taskboard::worker {
namespace {

class ReadFileTool : public Tool {
 public:
  explicit ReadFileTool(const BuiltinToolOptions& options)
      : max_bytes_(options.read_file_max_bytes) {
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
    absl::StatusOr<WorkdirPath> file = ResolveInWorkdir(context.workdir, *path);
    if (!file.ok()) return file.status();

    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(file->absolute, ec);
    if (!std::filesystem::exists(status)) {
      return absl::NotFoundError(absl::StrCat("file '", file->relative,
                                              "' does not exist in the task's working directory: "
                                              "use list_files to see what is there"));
    }
    if (std::filesystem::is_directory(status)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", file->relative, "' is a directory: use list_files to list it"));
    }
    if (!std::filesystem::is_regular_file(status)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", file->relative, "' is not a regular file"));
    }
    const uintmax_t size = std::filesystem::file_size(file->absolute, ec);
    if (!ec && size > max_bytes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "file '", file->relative, "' is ", size, " bytes, over read_file's limit of ", max_bytes_,
          " bytes: read a smaller file, or use a command tool that "
          "extracts the part you need"));
    }
    std::ifstream in(file->absolute, std::ios::binary);
    if (!in) {
      return absl::PermissionDeniedError(
          absl::StrCat("file '", file->relative, "' cannot be read: check its permissions"));
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::string content = text.str();
    if (content.size() > max_bytes_) {  // grew since file_size
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
  v1::ToolDeclaration declaration_;
};

}  // namespace

std::unique_ptr<Tool> NewReadFileTool(const BuiltinToolOptions& options) {
  return std::make_unique<ReadFileTool>(options);
}

}  // namespace taskboard::worker
