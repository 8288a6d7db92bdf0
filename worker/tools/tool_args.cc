#include "worker/tools/tool_args.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace taskboard::worker {

absl::StatusOr<Json> ParseToolArgs(absl::string_view args_json,
                                   std::initializer_list<absl::string_view> known) {
  absl::StatusOr<Json> args = ParseJson(args_json.empty() ? "{}" : args_json);
  if (!args.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments are not valid JSON: ", args.status().message()));
  }
  if (!args->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments must be a JSON object, got ", DumpJson(*args)));
  }
  for (const auto& [key, value] : args->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown argument '", key, "' (this tool takes: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return args;
}

absl::StatusOr<std::optional<std::string>> OptionalStringArg(const Json& args,
                                                             absl::string_view name) {
  auto it = args.find(std::string(name));
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument '", name, "' must be a string, got ", DumpJson(*it)));
  }
  return it->get<std::string>();
}

absl::StatusOr<std::string> RequiredStringArg(const Json& args, absl::string_view name) {
  absl::StatusOr<std::optional<std::string>> value = OptionalStringArg(args, name);
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' is required"));
  }
  return **value;
}

}  // namespace taskboard::worker
