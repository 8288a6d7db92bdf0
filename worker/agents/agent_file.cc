#include "worker/agents/agent_file.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/utf8.h"
#include "common/yaml_json.h"
#include "worker/agents/llm_settings.h"
#include "worker/base/child_environment.h"

namespace taskboard::worker {
namespace {

constexpr const char* kKnownFields[] = {"name",     "type",    "description",    "model",
                                        "thinking", "tools",   "command",        "shell",
                                        "env",      "passEnv", "timeoutSeconds", "cwd"};

bool IsValidAgentName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

// Splits pi-style Markdown into its frontmatter (YAML text, possibly empty)
// and body. A file that does not start with a `---` line is all body.
absl::Status SplitFrontmatter(absl::string_view text, absl::string_view* frontmatter,
                              absl::string_view* body) {
  *frontmatter = "";
  *body = text;
  auto next_line = [&text](size_t start, absl::string_view* line) {
    size_t end = text.find('\n', start);
    if (end == absl::string_view::npos) end = text.size();
    *line = absl::StripTrailingAsciiWhitespace(text.substr(start, end - start));
    return end == text.size() ? end : end + 1;
  };
  absl::string_view line;
  size_t pos = next_line(0, &line);
  if (line != "---") return absl::OkStatus();
  const size_t start = pos;
  while (pos < text.size()) {
    const size_t line_start = pos;
    pos = next_line(pos, &line);
    if (line == "---") {
      *frontmatter = text.substr(start, line_start - start);
      *body = text.substr(pos);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(
      "the frontmatter opened by the first `---` line is never closed: end it with a `---` line");
}

// Reads the fields of one decoded document into `def`; errors name the field
// but not the file (the caller prefixes it).
class FieldReader {
 public:
  FieldReader(const Json& doc, AgentDefinition* def) : doc_(doc), def_(def) {}

  absl::Status Read() {
    if (!doc_.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected an object of agent fields (name, type, command, ...), got ", KindOf(doc_)));
    }
    const std::vector<std::string>& llm_fields = LlmFieldNames();
    for (const auto& [key, value] : doc_.items()) {
      if (std::find(std::begin(kKnownFields), std::end(kKnownFields), key) ==
              std::end(kKnownFields) &&
          std::find(llm_fields.begin(), llm_fields.end(), key) == llm_fields.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown field '", key, "' (known fields: ", absl::StrJoin(kKnownFields, ", "),
            "; for llm agents also: ", absl::StrJoin(llm_fields, ", "), ")"));
      }
    }
    if (absl::Status s = String("name", &def_->name); !s.ok()) return s;
    if (!IsValidAgentName(def_->name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("field 'name': '", def_->name,
                       "' is not a valid agent name (use 1-64 letters, digits, '-', '_', '.')"));
    }
    if (absl::Status s = String("description", &def_->description); !s.ok()) return s;
    if (absl::Status s = String("model", &def_->model); !s.ok()) return s;
    if (absl::Status s = String("thinking", &def_->thinking); !s.ok()) return s;
    if (absl::Status s = StringArray("tools", &def_->tools); !s.ok()) return s;
    if (absl::Status s = ReadType(); !s.ok()) return s;
    if (absl::Status s = ReadCommand(); !s.ok()) return s;
    if (absl::Status s = ReadLlmSettings(doc_, def_->type == AgentType::kLlm, &def_->llm);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = ReadEnv(); !s.ok()) return s;
    if (absl::Status s = ReadPassEnv(); !s.ok()) return s;
    if (absl::Status s = ReadTimeout(); !s.ok()) return s;
    std::string cwd;
    if (absl::Status s = String("cwd", &cwd); !s.ok()) return s;
    if (!cwd.empty()) def_->cwd = AgainstAgentsDir(cwd);
    return absl::OkStatus();
  }

 private:
  static std::string KindOf(const Json& value) {
    if (value.is_string()) return "a string";
    if (value.is_array()) return "an array";
    if (value.is_object()) return "an object";
    if (value.is_boolean()) return "a bool";
    if (value.is_number()) return "a number";
    return "null";
  }

  static absl::Status WrongType(absl::string_view field, absl::string_view expected,
                                const Json& value) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", field, "' must be ", expected, ", got ", KindOf(value)));
  }

  const Json* Find(const char* field) const {
    auto it = doc_.find(field);
    return it == doc_.end() || it->is_null() ? nullptr : &*it;
  }

  absl::Status String(const char* field, std::string* out) const {
    const Json* value = Find(field);
    if (value == nullptr) return absl::OkStatus();
    if (!value->is_string()) return WrongType(field, "a string", *value);
    *out = value->get<std::string>();
    return absl::OkStatus();
  }

  absl::Status StringArray(const char* field, std::vector<std::string>* out) const {
    const Json* value = Find(field);
    if (value == nullptr) return absl::OkStatus();
    if (!value->is_array()) return WrongType(field, "an array of strings", *value);
    for (const Json& element : *value) {
      if (!element.is_string()) return WrongType(field, "an array of strings", element);
      out->push_back(element.get<std::string>());
    }
    return absl::OkStatus();
  }

  absl::Status ReadType() {
    std::string type;
    if (absl::Status s = String("type", &type); !s.ok()) return s;
    if (type.empty()) {
      def_->type = Find("command") != nullptr ? AgentType::kCommand : AgentType::kLlm;
    } else if (type == "command") {
      def_->type = AgentType::kCommand;
    } else if (type == "noop") {
      def_->type = AgentType::kNoop;
    } else if (type == "llm") {
      def_->type = AgentType::kLlm;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("field 'type': unknown agent type '", type, "' (use command, noop or llm)"));
    }
    return absl::OkStatus();
  }

  absl::Status ReadCommand() {
    const Json* shell = Find("shell");
    if (shell != nullptr && !shell->is_boolean()) return WrongType("shell", "a bool", *shell);
    const bool use_shell = shell != nullptr && shell->get<bool>();
    const Json* command = Find("command");
    if (def_->type != AgentType::kCommand) {
      if (command != nullptr || use_shell) {
        return absl::InvalidArgumentError(
            absl::StrCat("field 'command' applies only to command agents, and this one has type '",
                         AgentTypeName(def_->type), "'"));
      }
      return absl::OkStatus();
    }
    if (command == nullptr) {
      return absl::InvalidArgumentError(
          "field 'command' is required for a command agent: give an argv array such as "
          "[\"./my-agent.sh\", \"--flag\"]");
    }
    if (use_shell) {
      if (!command->is_string() || command->get<std::string>().empty()) {
        return WrongType("command", "a non-empty string when shell is true", *command);
      }
      def_->argv = {"/bin/sh", "-c", command->get<std::string>()};
      return absl::OkStatus();
    }
    if (command->is_string()) {
      return absl::InvalidArgumentError(
          "field 'command' is a string: give an argv array, or set `shell: true` to run it with "
          "/bin/sh -c");
    }
    if (absl::Status s = StringArray("command", &def_->argv); !s.ok()) return s;
    if (def_->argv.empty() || def_->argv[0].empty()) {
      return absl::InvalidArgumentError(
          "field 'command' must be a non-empty argv array whose first element is the program");
    }
    if (absl::StrContains(def_->argv[0], '/')) def_->argv[0] = AgainstAgentsDir(def_->argv[0]);
    return absl::OkStatus();
  }

  absl::Status ReadEnv() {
    const Json* env = Find("env");
    if (env == nullptr) return absl::OkStatus();
    if (!env->is_object()) return WrongType("env", "a map of NAME: value", *env);
    for (const auto& [name, value] : env->items()) {
      if (name.empty() || absl::StrContains(name, '=')) {
        return absl::InvalidArgumentError(
            absl::StrCat("field 'env': '", name, "' is not a valid variable name"));
      }
      if (value.is_string()) {
        def_->env.emplace_back(name, value.get<std::string>());
      } else if (value.is_number() || value.is_boolean()) {
        def_->env.emplace_back(name, DumpJson(value));
      } else {
        return WrongType(absl::StrCat("env.", name), "a string", value);
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadPassEnv() {
    if (absl::Status s = StringArray("passEnv", &def_->pass_env); !s.ok()) return s;
    for (const std::string& name : def_->pass_env) {
      if (absl::Status s = CheckPassThroughName(name); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("field 'passEnv': ", s.message()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadTimeout() {
    const Json* timeout = Find("timeoutSeconds");
    if (timeout == nullptr) return absl::OkStatus();
    if (!timeout->is_number_integer() || timeout->get<int64_t>() <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("field 'timeoutSeconds' must be a whole number of seconds > 0, got ",
                       DumpJson(*timeout)));
    }
    def_->timeout = absl::Seconds(timeout->get<int64_t>());
    return absl::OkStatus();
  }

  std::filesystem::path AgainstAgentsDir(const std::string& path) const {
    std::filesystem::path p(path);
    if (p.is_absolute()) return p;
    return (std::filesystem::absolute(def_->source.parent_path()) / p).lexically_normal();
  }

  const Json& doc_;
  AgentDefinition* def_;
};

absl::StatusOr<Json> DecodeDocument(const std::filesystem::path& path, absl::string_view text,
                                    std::string* body) {
  const std::string ext = absl::AsciiStrToLower(path.extension().string());
  if (ext == ".json") return ParseJson(text);
  if (ext == ".md") {
    absl::string_view frontmatter, rest;
    if (absl::Status s = SplitFrontmatter(text, &frontmatter, &rest); !s.ok()) return s;
    *body = std::string(absl::StripAsciiWhitespace(rest));
    if (absl::StripAsciiWhitespace(frontmatter).empty()) return Json::object();
    return ParseYamlAsJson(frontmatter);
  }
  absl::StatusOr<Json> doc = ParseYamlAsJson(text);
  if (doc.ok() && doc->is_null()) return Json::object();  // an empty YAML file
  return doc;
}

}  // namespace

absl::string_view AgentTypeName(AgentType type) {
  switch (type) {
    case AgentType::kCommand:
      return "command";
    case AgentType::kNoop:
      return "noop";
    case AgentType::kLlm:
      return "llm";
  }
  return "unknown";
}

bool IsAgentFile(const std::filesystem::path& path) {
  const std::string ext = absl::AsciiStrToLower(path.extension().string());
  return ext == ".json" || ext == ".yaml" || ext == ".yml" || ext == ".md";
}

absl::StatusOr<AgentDefinition> ParseAgentFile(const std::filesystem::path& path,
                                               absl::string_view text) {
  const std::string where = path.string();
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat("agent file ", where,
                                                   ": not valid UTF-8 (first bad byte at offset ",
                                                   *bad, "); save it as UTF-8"));
  }
  AgentDefinition def;
  def.source = path;
  def.name = path.stem().string();
  absl::StatusOr<Json> doc = DecodeDocument(path, text, &def.system_prompt);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("agent file ", where, ": ", doc.status().message()));
  }
  if (absl::Status s = FieldReader(*doc, &def).Read(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("agent file ", where, ": ", s.message()));
  }
  return def;
}

absl::StatusOr<AgentDefinition> LoadAgentFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return absl::NotFoundError(absl::StrCat("agent file ", path.string(), " does not exist"));
    }
    return absl::PermissionDeniedError(
        absl::StrCat("agent file ", path.string(), " cannot be read: check its permissions"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseAgentFile(path, text.str());
}

}  // namespace taskboard::worker
