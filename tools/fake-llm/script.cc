#include "tools/fake-llm/script.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/yaml_json.h"

namespace taskboard::fake_llm {
namespace {

// Collects every problem in a script so one run of fake-llm reports them all.
class ScriptReader {
 public:
  Script Read(const Json& document) {
    Script script;
    const Json* rules = &document;
    if (document.is_object()) {
      CheckKeys(document, "script", {"rules"});
      if (!document.contains("rules")) {
        Error("script", "missing 'rules' (a list of {match, respond})");
        return script;
      }
      rules = &document["rules"];
    }
    if (!rules->is_array()) {
      Error("rules", absl::StrCat("must be a list of {match, respond} (got: ", Shown(*rules), ")"));
      return script;
    }
    for (size_t i = 0; i < rules->size(); ++i) {
      script.rules.push_back(ReadRule((*rules)[i], absl::StrCat("rules[", i, "]")));
    }
    return script;
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  static std::string Shown(const Json& value) {
    std::string text = DumpJson(value);
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }

  void Error(const std::string& path, const std::string& message) {
    errors_.push_back(absl::StrCat(path, ": ", message));
  }

  void CheckKeys(const Json& object, const std::string& path,
                 std::initializer_list<const char*> allowed) {
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (const char* name : allowed) known = known || key == name;
      if (!known) {
        Error(path, absl::StrCat("unknown key '", key,
                                 "' (expected one of: ", absl::StrJoin(allowed, ", "), ")"));
      }
    }
  }

  std::optional<std::string> String(const Json& object, const char* key, const std::string& path) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object[key];
    if (!value.is_string()) {
      Error(absl::StrCat(path, ".", key),
            absl::StrCat("must be a string (got: ", Shown(value), ")"));
      return std::nullopt;
    }
    return value.get<std::string>();
  }

  std::optional<int64_t> Integer(const Json& object, const char* key, const std::string& path,
                                 int64_t min, int64_t max) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object[key];
    if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > max) {
      Error(absl::StrCat(path, ".", key), absl::StrCat("must be an integer from ", min, " to ", max,
                                                       " (got: ", Shown(value), ")"));
      return std::nullopt;
    }
    return value.get<int64_t>();
  }

  std::optional<bool> Bool(const Json& object, const char* key, const std::string& path) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object[key];
    if (!value.is_boolean()) {
      Error(absl::StrCat(path, ".", key),
            absl::StrCat("must be true or false (got: ", Shown(value), ")"));
      return std::nullopt;
    }
    return value.get<bool>();
  }

  Rule ReadRule(const Json& json, const std::string& path) {
    Rule rule;
    if (!json.is_object()) {
      Error(path, absl::StrCat("must be an object {match, respond} (got: ", Shown(json), ")"));
      return rule;
    }
    CheckKeys(json, path, {"name", "match", "respond"});
    rule.name = String(json, "name", path).value_or("");
    if (json.contains("match")) rule.match = ReadMatch(json["match"], path + ".match");
    if (!json.contains("respond")) {
      Error(path, "missing 'respond' (content, tool_calls, error, malformed or raw_body)");
    } else {
      rule.respond = ReadResponse(json["respond"], path + ".respond");
    }
    return rule;
  }

  MatchSpec ReadMatch(const Json& json, const std::string& path) {
    MatchSpec match;
    if (json.is_null()) return match;  // `match:` with nothing: always matches.
    if (!json.is_object()) {
      Error(path, absl::StrCat("must be an object of conditions (got: ", Shown(json), ")"));
      return match;
    }
    CheckKeys(json, path,
              {"model", "contains", "last_user_contains", "system_contains", "has_tool_results",
               "tool_result_contains", "turn", "times", "after"});
    match.model = String(json, "model", path);
    match.contains = String(json, "contains", path);
    match.last_user_contains = String(json, "last_user_contains", path);
    match.system_contains = String(json, "system_contains", path);
    match.has_tool_results = Bool(json, "has_tool_results", path);
    match.tool_result_contains = String(json, "tool_result_contains", path);
    match.turn = Integer(json, "turn", path, 1, 1'000'000);
    match.times = Integer(json, "times", path, 1, 1'000'000'000);
    match.after = Integer(json, "after", path, 0, 1'000'000'000).value_or(0);
    return match;
  }

  ResponseSpec ReadResponse(const Json& json, const std::string& path) {
    ResponseSpec respond;
    if (!json.is_object()) {
      Error(path,
            absl::StrCat("must be an object with content, tool_calls, error, malformed or raw_body "
                         "(got: ",
                         Shown(json), ")"));
      return respond;
    }
    CheckKeys(json, path,
              {"content", "tool_calls", "error", "malformed", "raw_body", "delay_ms", "usage",
               "chunk_chars"});
    if (json.contains("content")) {
      const Json& content = json["content"];
      if (content.is_string()) {
        respond.content = content.get<std::string>();
      } else if (!content.is_null()) {
        respond.content = DumpJson(content);  // `content: 42` means the text 42.
      } else {
        Error(path + ".content", "must be text, an object or a list (got: null)");
      }
    }
    if (json.contains("tool_calls")) respond.tool_calls = ReadToolCalls(json["tool_calls"], path);
    if (json.contains("error")) respond.error = ReadError(json["error"], path + ".error");
    respond.malformed = Bool(json, "malformed", path).value_or(false);
    if (json.contains("raw_body")) {
      if (json["raw_body"].is_null()) {
        Error(path + ".raw_body", "must be text, an object or a list (got: null)");
      } else {
        respond.raw_body = json["raw_body"];
      }
    }
    respond.delay_ms = Integer(json, "delay_ms", path, 0, 3'600'000).value_or(0);
    respond.chunk_chars = Integer(json, "chunk_chars", path, 1, 1'000'000).value_or(8);
    if (json.contains("usage")) ReadUsage(json["usage"], path + ".usage", respond);

    const bool completion = json.contains("content") || json.contains("tool_calls");
    const int kinds = int{completion} + int{json.contains("error")} + int{respond.malformed} +
                      int{json.contains("raw_body")};
    if (kinds == 0) {
      Error(path, "needs one of content, tool_calls, error, malformed: true or raw_body");
    } else if (kinds > 1) {
      Error(path,
            "choose one of content/tool_calls, error, malformed or raw_body: they cannot be "
            "combined");
    }
    return respond;
  }

  std::vector<ToolCallSpec> ReadToolCalls(const Json& json, const std::string& parent) {
    std::vector<ToolCallSpec> calls;
    const std::string path = parent + ".tool_calls";
    if (!json.is_array() || json.empty()) {
      Error(path,
            absl::StrCat("must be a non-empty list of {name, arguments} (got: ", Shown(json), ")"));
      return calls;
    }
    for (size_t i = 0; i < json.size(); ++i) {
      const Json& call = json[i];
      const std::string call_path = absl::StrCat(path, "[", i, "]");
      if (!call.is_object()) {
        Error(call_path,
              absl::StrCat("must be an object {name, arguments} (got: ", Shown(call), ")"));
        continue;
      }
      CheckKeys(call, call_path, {"name", "arguments"});
      ToolCallSpec spec;
      std::optional<std::string> name = String(call, "name", call_path);
      if (!call.contains("name")) Error(call_path, "missing 'name' (the function to call)");
      spec.name = name.value_or("");
      spec.arguments = "{}";
      if (call.contains("arguments")) {
        const Json& arguments = call["arguments"];
        if (arguments.is_object()) {
          spec.arguments = DumpJson(arguments);
        } else if (arguments.is_string()) {
          spec.arguments = arguments.get<std::string>();
        } else {
          Error(call_path + ".arguments",
                absl::StrCat("must be an object (or raw JSON text) (got: ", Shown(arguments), ")"));
        }
      }
      calls.push_back(std::move(spec));
    }
    return calls;
  }

  ErrorSpec ReadError(const Json& json, const std::string& path) {
    ErrorSpec error;
    if (!json.is_object()) {
      Error(path, absl::StrCat("must be an object {status, body?, retry_after_seconds?} (got: ",
                               Shown(json), ")"));
      return error;
    }
    CheckKeys(json, path, {"status", "body", "retry_after_seconds"});
    if (!json.contains("status")) Error(path, "missing 'status' (an HTTP status such as 429)");
    error.status = static_cast<int>(Integer(json, "status", path, 400, 599).value_or(500));
    if (json.contains("body")) error.body = json["body"];
    error.retry_after_seconds = Integer(json, "retry_after_seconds", path, 0, 86'400);
    return error;
  }

  void ReadUsage(const Json& json, const std::string& path, ResponseSpec& respond) {
    if (!json.is_object()) {
      Error(path, absl::StrCat("must be an object {prompt_tokens?, completion_tokens?} (got: ",
                               Shown(json), ")"));
      return;
    }
    CheckKeys(json, path, {"prompt_tokens", "completion_tokens"});
    respond.prompt_tokens = Integer(json, "prompt_tokens", path, 0, 1'000'000'000);
    respond.completion_tokens = Integer(json, "completion_tokens", path, 0, 1'000'000'000);
  }

  std::vector<std::string> errors_;
};

}  // namespace

absl::StatusOr<Script> ParseScript(const Json& document) {
  ScriptReader reader;
  Script script = reader.Read(document);
  if (!reader.errors().empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(reader.errors(), "\n"));
  }
  return script;
}

absl::StatusOr<Script> ParseScriptText(absl::string_view text) {
  absl::StatusOr<Json> document = ParseYamlAsJson(text);
  if (!document.ok()) return document.status();
  return ParseScript(*document);
}

}  // namespace taskboard::fake_llm
