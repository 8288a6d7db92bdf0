#include "scheduler/triggers/event_args.h"

#include "absl/strings/str_cat.h"

namespace taskboard::triggers {

absl::StatusOr<Json> MapEventArgs(const std::vector<ArgSource>& sources, const Json& payload) {
  Json args = Json::object();
  for (const ArgSource& source : sources) {
    if (const Json* constant = std::get_if<Json>(&source.from)) {
      args[source.name] = *constant;
      continue;
    }
    const JsonPath& path = std::get<JsonPath>(source.from);
    const Json* value = path.Find(payload);
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("arg '", source.name, "': ", path.text(), " is not in the payload"));
    }
    args[source.name] = *value;
  }
  return args;
}

}  // namespace taskboard::triggers
