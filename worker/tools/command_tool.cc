#include "worker/tools/command_tool.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/utf8.h"
#include "common/yaml_json.h"
#include "worker/base/child_environment.h"
#include "worker/base/subprocess.h"
#include "worker/tools/flow_state.h"
#include "worker/tools/mcp/mcp_server_file.h"
#include "worker/tools/tool_cache_fields.h"

namespace taskboard::worker {
namespace {

constexpr const char* kKnownFields[] = {
    "name",      "description", "parameters", "command",    "timeout_seconds",
    "cacheable", "ttl_ms",      "scope",      "key_fields", "pass_env"};

absl::Status WrongType(absl::string_view field, absl::string_view expected, const Json& value) {
  return WrongFieldType(field, expected, value);
}

// Fills `def` from the decoded document; errors name the field, not the file.
absl::Status ReadFields(const Json& doc, CommandToolDefinition* def) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        "expected an object of tool fields (name, description, parameters, command, ...)");
  }
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kKnownFields), std::end(kKnownFields), key) ==
        std::end(kKnownFields)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field '", key, "' (known fields: ", absl::StrJoin(kKnownFields, ", "), ")"));
    }
  }
  auto find = [&doc](const char* field) -> const Json* {
    auto it = doc.find(field);
    return it == doc.end() || it->is_null() ? nullptr : &*it;
  };
  v1::ToolDeclaration& decl = def->declaration;

  if (const Json* name = find("name")) {
    if (!name->is_string()) return WrongType("name", "a string", *name);
    decl.set_name(name->get<std::string>());
  }
  if (!IsValidToolName(decl.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat("field 'name': '", decl.name(),
                     "' is not a valid tool name (use 1-64 letters, digits, "
                     "'-', '_')"));
  }
  if (const Json* description = find("description")) {
    if (!description->is_string()) return WrongType("description", "a string", *description);
    decl.set_description(description->get<std::string>());
  }
  const Json* parameters = find("parameters");
  if (parameters != nullptr && !parameters->is_object()) {
    return WrongType("parameters", "a JSON schema object", *parameters);
  }
  decl.set_parameters_schema_json(parameters != nullptr ? DumpJson(*parameters)
                                                        : R"({"type":"object"})");

  const Json* command = find("command");
  if (command == nullptr || !command->is_array() || command->empty()) {
    return absl::InvalidArgumentError(
        "field 'command' is required: give an argv array such as [\"./my-tool.sh\", \"--flag\"]");
  }
  for (const Json& arg : *command) {
    if (!arg.is_string()) return WrongType("command", "an array of strings", arg);
    def->argv.push_back(arg.get<std::string>());
  }
  if (def->argv[0].empty()) {
    return absl::InvalidArgumentError("field 'command': the first element (the program) is empty");
  }
  if (absl::StrContains(def->argv[0], '/') && def->argv[0][0] != '/') {
    def->argv[0] = (std::filesystem::absolute(def->source.parent_path()) / def->argv[0])
                       .lexically_normal()
                       .string();
  }

  if (const Json* timeout = find("timeout_seconds")) {
    if (!timeout->is_number_integer() || timeout->get<int64_t>() <= 0) {
      return WrongType("timeout_seconds", "a whole number of seconds > 0", *timeout);
    }
    def->timeout = absl::Seconds(timeout->get<int64_t>());
  }
  if (absl::Status cache = ReadToolCacheFields(doc, &decl); !cache.ok()) return cache;
  if (const Json* pass_env = find("pass_env")) {
    if (!pass_env->is_array()) return WrongType("pass_env", "an array of strings", *pass_env);
    for (const Json& name : *pass_env) {
      if (!name.is_string()) return WrongType("pass_env", "an array of strings", name);
      if (absl::Status s = CheckPassThroughName(name.get<std::string>()); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("field 'pass_env': ", s.message()));
      }
      def->pass_env.push_back(name.get<std::string>());
    }
  }
  return absl::OkStatus();
}

// The last lines of stderr, trimmed, for one-line error messages.
std::string StderrTail(absl::string_view stderr_tail) {
  absl::string_view text = absl::StripAsciiWhitespace(stderr_tail);
  if (text.empty()) return " (nothing on stderr)";
  if (text.size() > 500) text = text.substr(text.size() - 500);
  return absl::StrCat(": ", ToValidUtf8(text));
}

}  // namespace

bool IsCommandToolFile(const std::filesystem::path& path) {
  const std::string ext = absl::AsciiStrToLower(path.extension().string());
  return ext == ".json" || ext == ".yaml" || ext == ".yml";
}

absl::StatusOr<Json> DecodeToolFile(const std::filesystem::path& path, absl::string_view text) {
  const std::string where = absl::StrCat("tool file ", path.string(), ": ");
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "not valid UTF-8 (first bad byte at offset ", *bad, "); save it as UTF-8"));
  }
  const bool json = absl::AsciiStrToLower(path.extension().string()) == ".json";
  absl::StatusOr<Json> doc = json ? ParseJson(text) : ParseYamlAsJson(text);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat(where, doc.status().message()));
  return doc;
}

namespace {

absl::StatusOr<CommandToolDefinition> ParseCommandToolDocument(const std::filesystem::path& path,
                                                               const Json& doc) {
  CommandToolDefinition def;
  def.source = path;
  def.declaration.set_name(path.stem().string());
  if (absl::Status s = ReadFields(doc, &def); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("tool file ", path.string(), ": ", s.message()));
  }
  return def;
}

}  // namespace

absl::StatusOr<CommandToolDefinition> ParseCommandToolFile(const std::filesystem::path& path,
                                                           absl::string_view text) {
  absl::StatusOr<Json> doc = DecodeToolFile(path, text);
  if (!doc.ok()) return doc.status();
  return ParseCommandToolDocument(path, *doc);
}

CommandTool::CommandTool(CommandToolDefinition definition, CommandToolOptions options)
    : definition_(std::move(definition)), options_(options) {}

absl::StatusOr<std::string> CommandTool::Execute(absl::string_view args_json,
                                                 const ToolContext& context) const {
  SubprocessOptions process;
  process.argv = definition_.argv;
  std::map<std::string, std::string> env = ChildEnvironment(definition_.pass_env);
  // Where the call runs, and the socket for `taskboard state`
  // (docs/mcp.md#flowstate).
  if (context.flow_state != nullptr) {
    for (auto& [name, value] : context.flow_state->Environment()) env[name] = value;
    // `taskboard` sits next to the worker, as for command agents.
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const std::string path = env["PATH"];
      env["PATH"] = absl::StrCat(self.parent_path().string(), ":",
                                 path.empty() ? "/usr/local/bin:/usr/bin:/bin" : path);
    }
  }
  process.env = EnvironmentStrings(env);
  process.cwd = context.workdir.string();
  process.stdin_data = std::string(args_json);
  process.timeout = definition_.timeout;
  process.kill_grace = options_.kill_grace;
  process.max_stdout_bytes = options_.max_output_bytes;
  process.cancel = context.cancel;

  absl::StatusOr<SubprocessResult> ran = RunSubprocess(process);
  if (!ran.ok()) return ran.status();
  using Ending = SubprocessResult::Ending;
  switch (ran->ending) {
    case Ending::kExited:
      if (ran->exit_code != 0) {
        return absl::UnknownError(
            absl::StrCat("exited with code ", ran->exit_code, StderrTail(ran->stderr_tail)));
      }
      break;
    case Ending::kSignaled:
      return absl::UnknownError(absl::StrCat("was killed by ", SignalName(ran->term_signal),
                                             StderrTail(ran->stderr_tail)));
    case Ending::kTimedOut:
      return absl::DeadlineExceededError(
          absl::StrCat("timed out after ", absl::ToDoubleSeconds(definition_.timeout),
                       "s (timeout_seconds in ", definition_.source.string(), ")"));
    case Ending::kCancelled:
      return absl::CancelledError(absl::StrCat(
          "cancelled: ", context.cancel != nullptr ? context.cancel->reason() : "no reason given"));
    case Ending::kOutputTooLarge:
      return absl::ResourceExhaustedError(absl::StrCat(
          "wrote more than ", options_.max_output_bytes, " bytes to stdout, the output limit"));
  }
  const std::string out = ToValidUtf8(ran->stdout_data);
  if (absl::StatusOr<Json> parsed = ParseJson(absl::StripAsciiWhitespace(out));
      parsed.ok() && !absl::StripAsciiWhitespace(out).empty()) {
    return DumpJson(*parsed);
  }
  return DumpJson(Json(out));
}

absl::StatusOr<std::vector<std::pair<std::filesystem::path, std::string>>> ReadToolFiles(
    const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat("tools directory '", dir.string(),
                     "' does not exist: pass --tools a directory of tool files (*.json, *.yaml)"));
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tools directory '", dir.string(), "' is not a directory"));
  }
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsCommandToolFile(it->path()) && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot list tools directory '", dir.string(), "': ", ec.message()));
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::filesystem::path, std::string>> read;
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return absl::PermissionDeniedError(
          absl::StrCat("tool file ", file.string(), " cannot be read: check its permissions"));
    }
    std::ostringstream text;
    text << in.rdbuf();
    read.emplace_back(file, text.str());
  }
  return read;
}

absl::StatusOr<std::vector<std::unique_ptr<Tool>>> LoadCommandTools(
    const std::filesystem::path& dir, const CommandToolOptions& options) {
  absl::StatusOr<std::vector<std::pair<std::filesystem::path, std::string>>> files =
      ReadToolFiles(dir);
  if (!files.ok()) return files.status();
  std::vector<std::unique_ptr<Tool>> tools;
  for (const auto& [file, text] : *files) {
    absl::StatusOr<Json> doc = DecodeToolFile(file, text);
    if (!doc.ok()) return doc.status();
    if (IsMcpServerDocument(*doc)) continue;
    absl::StatusOr<CommandToolDefinition> def = ParseCommandToolDocument(file, *doc);
    if (!def.ok()) return def.status();
    tools.push_back(std::make_unique<CommandTool>(*std::move(def), options));
  }
  return tools;
}

}  // namespace taskboard::worker
