#include "common/mcp/argument_check.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::mcp {
namespace {

bool HasType(const Json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return true;
}

absl::Status CheckValue(const Json& schema, const Json& value, const std::string& path) {
  if (!schema.is_object()) return absl::OkStatus();
  if (auto type = schema.find("type"); type != schema.end() && type->is_string()) {
    const std::string& want = type->get_ref<const std::string&>();
    if (!HasType(value, want)) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", path, "' must be ", want == "integer" ? "an " : "a ", want));
    }
    if (want == "object") {
      if (absl::Status inner = CheckArguments(schema, value); !inner.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("in '", path, "': ", inner.message()));
      }
    }
  }
  if (auto choices = schema.find("enum"); choices != schema.end() && choices->is_array()) {
    bool found = false;
    for (const Json& choice : *choices) found = found || choice == value;
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", path, "' must be one of ", DumpJson(*choices)));
    }
  }
  if (value.is_number()) {
    const double number = value.get<double>();
    if (auto min = schema.find("minimum"); min != schema.end() && number < min->get<double>()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", path, "' must be at least ", DumpJson(*min)));
    }
    if (auto max = schema.find("maximum"); max != schema.end() && number > max->get<double>()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", path, "' must be at most ", DumpJson(*max)));
    }
  }
  if (auto max = schema.find("maxLength");
      max != schema.end() && value.is_string() &&
      value.get_ref<const std::string&>().size() > max->get<size_t>()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument '", path, "' is longer than ", DumpJson(*max), " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckArguments(const Json& schema, const Json& arguments) {
  if (!arguments.is_object()) return absl::InvalidArgumentError("the arguments must be an object");
  static const Json kNone = Json::object();
  auto properties_it = schema.find("properties");
  const Json& properties = properties_it != schema.end() ? *properties_it : kNone;
  if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
    for (const Json& name : *required) {
      if (name.is_string() && !arguments.contains(name.get<std::string>())) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument '", name.get<std::string>(), "' is required"));
      }
    }
  }
  auto extra = schema.find("additionalProperties");
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const std::string& name = it.key();
    const Json& value = it.value();
    if (auto property = properties.find(name); property != properties.end()) {
      if (absl::Status checked = CheckValue(*property, value, name); !checked.ok()) return checked;
      continue;
    }
    if (extra == schema.end()) continue;
    if (extra->is_boolean() && !extra->get<bool>()) {
      std::string known;
      for (auto property = properties.begin(); property != properties.end(); ++property) {
        absl::StrAppend(&known, known.empty() ? "" : ", ", property.key());
      }
      return absl::InvalidArgumentError(
          absl::StrCat("unknown argument '", name.substr(0, 100),
                       "'; the arguments are: ", known.empty() ? "none" : known));
    }
    if (absl::Status checked = CheckValue(*extra, value, name); !checked.ok()) return checked;
  }
  return absl::OkStatus();
}

}  // namespace taskboard::mcp
