#include "scheduler/flow/dsl_text.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "yaml-cpp/yaml.h"

namespace taskboard::flow {
namespace {

// YAML 1.2 core schema resolution for plain (unquoted) scalars; quoted
// scalars (tag "!") always stay strings, so `"true"` is a string.
Json PlainScalarToJson(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  int64_t integer = 0;
  if (absl::SimpleAtoi(text, &integer) && text.find_first_of("._") == std::string::npos) {
    return integer;
  }
  const bool looks_numeric =
      !text.empty() && (absl::ascii_isdigit(static_cast<unsigned char>(text[0])) ||
                        ((text[0] == '-' || text[0] == '+' || text[0] == '.') && text.size() > 1));
  double real = 0;
  if (looks_numeric && absl::SimpleAtod(text, &real) &&
      text.find_first_of("xX") == std::string::npos) {
    return real;
  }
  return text;
}

absl::StatusOr<Json> YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") return Json(node.Scalar());
      return PlainScalarToJson(node.Scalar());
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const YAML::Node& element : node) {
        absl::StatusOr<Json> value = YamlToJson(element);
        if (!value.ok()) return value.status();
        array.push_back(*std::move(value));
      }
      return array;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          return absl::InvalidArgumentError(absl::StrCat("invalid YAML at line ",
                                                         entry.first.Mark().line + 1,
                                                         ": mapping keys must be plain strings"));
        }
        absl::StatusOr<Json> value = YamlToJson(entry.second);
        if (!value.ok()) return value.status();
        object[entry.first.Scalar()] = *std::move(value);
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace

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
  try {
    return YamlToJson(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid YAML at line ", e.mark.line + 1,
                                                   ", column ", e.mark.column + 1, ": ", e.msg));
  }
}

DslFormat DslFormatFromPath(absl::string_view path) {
  if (absl::EndsWithIgnoreCase(path, ".json")) return DslFormat::kJson;
  if (absl::EndsWithIgnoreCase(path, ".yaml") || absl::EndsWithIgnoreCase(path, ".yml")) {
    return DslFormat::kYaml;
  }
  return DslFormat::kAuto;
}

}  // namespace taskboard::flow
