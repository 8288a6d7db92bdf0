#include "common/yaml_json.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace taskboard {
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
      absl::ascii_isdigit(static_cast<unsigned char>(text[0])) ||
      ((text[0] == '-' || text[0] == '+' || text[0] == '.') && text.size() > 1);
  double real = 0;
  if (looks_numeric && absl::SimpleAtod(text, &real) &&
      text.find_first_of("xX") == std::string::npos) {
    return real;
  }
  return text;
}

absl::StatusOr<Json> NodeToJson(const YAML::Node& node) {
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
        absl::StatusOr<Json> value = NodeToJson(element);
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
        absl::StatusOr<Json> value = NodeToJson(entry.second);
        if (!value.ok()) return value.status();
        object[entry.first.Scalar()] = *std::move(value);
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<Json> ParseYamlAsJson(absl::string_view text) {
  try {
    return NodeToJson(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid YAML at line ", e.mark.line + 1,
                                                   ", column ", e.mark.column + 1, ": ", e.msg));
  }
}

}  // namespace taskboard
