// list_files {path?, glob?}: the files under a directory of the task's
// working directory, recursively, as {"path", "files": [sorted relative
// paths], "truncated": bool}. `.git` directories are skipped and symlinked
// directories are not followed (a tree with a link to `/` stays finite).

#include <fnmatch.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/tool_args.h"
#include "worker/tools/workdir_path.h"

namespace taskboard::worker {
namespace {

class ListFilesTool : public Tool {
 public:
  explicit ListFilesTool(const BuiltinToolOptions& options)
      : max_entries_(options.list_files_max_entries) {
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
    absl::StatusOr<WorkdirPath> dir = ResolveInWorkdir(context.workdir, path->value_or("."));
    if (!dir.ok()) return dir.status();

    std::error_code ec;
    if (!std::filesystem::is_directory(dir->absolute, ec)) {
      if (!std::filesystem::exists(dir->absolute, ec)) {
        return absl::NotFoundError(absl::StrCat(
            "directory '", dir->relative, "' does not exist in the task's working directory"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("'", dir->relative, "' is not a directory: use read_file to read a file"));
    }
    std::vector<std::string> files;
    bool truncated = false;
    std::filesystem::recursive_directory_iterator it(
        dir->absolute, std::filesystem::directory_options::skip_permission_denied, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (context.cancel != nullptr && context.cancel->cancelled()) {
        return absl::CancelledError(absl::StrCat("cancelled: ", context.cancel->reason()));
      }
      std::error_code entry_ec;
      if (it->is_directory(entry_ec)) {
        if (it->path().filename() == ".git") it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(entry_ec)) continue;
      std::string relative = it->path().lexically_relative(dir->absolute).string();
      if (glob->has_value() && fnmatch((*glob)->c_str(), relative.c_str(), 0) != 0) continue;
      if (files.size() == max_entries_) {
        truncated = true;
        break;
      }
      files.push_back(std::move(relative));
    }
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot list '", dir->relative, "': ", ec.message()));
    }
    std::sort(files.begin(), files.end());
    return DumpJson({{"path", dir->relative}, {"files", files}, {"truncated", truncated}});
  }

 private:
  const size_t max_entries_;
  v1::ToolDeclaration declaration_;
};

}  // namespace

std::unique_ptr<Tool> NewListFilesTool(const BuiltinToolOptions& options) {
  return std::make_unique<ListFilesTool>(options);
}

}  // namespace taskboard::worker
