#include "scheduler/flow/dsl_text.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_depth.h"
#include "common/utf8.h"
#include "common/yaml_json.h"

namespace taskboard::flow {

absl::StatusOr<Json> ParseDslText(absl::string_view text, DslFormat format) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) {
    return absl::InvalidArgumentError(
        "flow text is empty: expected a JSON or YAML flow definition");
  }
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flow text is not valid UTF-8 (first bad byte at offset ", *bad, "): save it as UTF-8"));
  }
  if (format == DslFormat::kAuto) {
    format = trimmed.front() == '{' ? DslFormat::kJson : DslFormat::kYaml;
  }
  if (format == DslFormat::kJson) {
    if (absl::Status depth = CheckJsonTextDepth(text, MaxJsonDepth()); !depth.ok()) return depth;
    try {
      return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
      // nlohmann reports a byte offset; turn it into line:column for people.
      size_t line = 1, column = 1;
      for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          column = 1;
        } else {
          ++column;
        }
      }
      std::string what = e.what();
      if (size_t pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
      return absl::InvalidArgumentError(
          absl::StrCat("invalid JSON at line ", line, ", column ", column, ": ", what));
    } catch (const Json::exception& e) {  // out_of_range: a number such as 1e999
      return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", e.what()));
    }
  }
  return ParseYamlAsJson(text);
}

DslFormat DslFormatFromPath(absl::string_view path) {
  if (absl::EndsWithIgnoreCase(path, ".json")) return DslFormat::kJson;
  if (absl::EndsWithIgnoreCase(path, ".yaml") || absl::EndsWithIgnoreCase(path, ".yml")) {
    return DslFormat::kYaml;
  }
  return DslFormat::kAuto;
}

}  // namespace taskboard::flow
