#include "common/yaml_json.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_depth.h"
#include "yaml-cpp/depthguard.h"
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

// Aliases let a few lines of YAML name the same node many times ("billion
// laughs"); a document may expand to at most this many values.
constexpr int64_t kMaxYamlValues = 1 << 20;

// Recursion is bounded by the depth limit, checked before each descent.
class YamlConverter {
 public:
  explicit YamlConverter(int max_depth) : max_depth_(max_depth) {}

  absl::StatusOr<Json> Convert(const YAML::Node& node) {
    if (++values_ > kMaxYamlValues) {
      return absl::InvalidArgumentError(absl::StrCat(
          "YAML expands to more than ", kMaxYamlValues, " values at ", path_.Path(),
          " (aliases repeat what they name): write the values out or use fewer aliases"));
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar:
        if (node.Tag() == "!") return Json(node.Scalar());
        return PlainScalarToJson(node.Scalar());
      case YAML::NodeType::Sequence:
        return Sequence(node);
      case YAML::NodeType::Map:
        return Map(node);
    }
    return nullptr;
  }

 private:
  absl::Status Descend() {
    if (path_.depth() >= static_cast<size_t>(max_depth_)) {
      return JsonTooDeepError(max_depth_, path_.Path());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Json> Sequence(const YAML::Node& node) {
    if (absl::Status depth = Descend(); !depth.ok()) return depth;
    path_.PushArray();
    Json array = Json::array();
    for (const YAML::Node& element : node) {
      absl::StatusOr<Json> value = Convert(element);
      if (!value.ok()) return value.status();
      array.push_back(*std::move(value));
      path_.NextIndex();
    }
    path_.Pop();
    return array;
  }

  absl::StatusOr<Json> Map(const YAML::Node& node) {
    if (absl::Status depth = Descend(); !depth.ok()) return depth;
    path_.PushObject();
    Json object = Json::object();
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        return absl::InvalidArgumentError(absl::StrCat("invalid YAML at line ",
                                                       entry.first.Mark().line + 1,
                                                       ": mapping keys must be plain strings"));
      }
      path_.SetKey(entry.first.Scalar());
      absl::StatusOr<Json> value = Convert(entry.second);
      if (!value.ok()) return value.status();
      object[entry.first.Scalar()] = *std::move(value);
    }
    path_.Pop();
    return object;
  }

  const int max_depth_;
  int64_t values_ = 0;
  JsonPathStack path_;
};

}  // namespace

absl::StatusOr<Json> ParseYamlAsJson(absl::string_view text) {
  try {
    return YamlConverter(MaxJsonDepth()).Convert(YAML::Load(std::string(text)));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (2,000 levels) fires before ours can look.
    return absl::InvalidArgumentError(absl::StrCat(
        "YAML nested deeper than the limit of ", MaxJsonDepth(), " levels (line ", e.mark.line + 1,
        "): flatten the document, or raise --max-json-depth (up to ", kMaxJsonDepthCeiling, ")"));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid YAML at line ", e.mark.line + 1,
                                                   ", column ", e.mark.column + 1, ": ", e.msg));
  }
}

}  // namespace taskboard
