#include "scheduler/flow/run_args.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::flow {
namespace {

std::string DeclaredList(const v1::FlowSpec& spec) {
  std::vector<std::string> names;
  for (const v1::ArgSpec& arg : spec.args()) names.push_back(arg.name());
  return names.empty() ? "this flow declares no args"
                       : absl::StrCat("declared: ", absl::StrJoin(names, ", "));
}

}  // namespace

absl::StatusOr<Json> BindRunArgs(const v1::FlowSpec& spec, const Json& given) {
  FlowErrorList errors;
  if (!given.is_null() && !given.is_object()) {
    errors.Add("args", absl::StrCat("must be an object of arg name -> value (got ",
                                    DescribeJsonType(given), ")"));
    return errors.ToStatus("invalid run args");
  }
  absl::flat_hash_set<std::string> declared;
  Json bound = Json::object();
  for (const v1::ArgSpec& arg : spec.args()) {
    declared.insert(arg.name());
    if (given.is_object() && given.contains(arg.name())) {
      bound[arg.name()] = given[arg.name()];
    } else if (arg.has_default_value()) {
      bound[arg.name()] = ProtoValueToJson(arg.default_value());
    } else if (arg.required()) {
      errors.Add(JoinPath("args", arg.name()),
                 absl::StrCat(
                     "required arg '", arg.name(), "' has no value and no default",
                     arg.description().empty() ? "" : absl::StrCat(" (", arg.description(), ")")));
    } else {
      // An optional arg left unset interpolates as "" (null renders empty)
      // rather than failing the phase that mentions it.
      bound[arg.name()] = nullptr;
    }
  }
  if (given.is_object()) {
    for (const auto& [name, value] : given.items()) {
      if (!declared.contains(name)) {
        errors.Add(JoinPath("args", name),
                   absl::StrCat("unknown arg '", name, "' (", DeclaredList(spec), ")"));
      }
    }
  }
  if (!errors.empty()) return errors.ToStatus("invalid run args");
  return bound;
}

absl::StatusOr<Json> ParseCliArgs(const std::vector<std::string>& values,
                                  const v1::FlowSpec& spec) {
  Json args = Json::object();
  if (values.empty()) return args;
  if (values.size() == 1 && !values[0].empty() && values[0].front() == '{') {
    absl::StatusOr<Json> parsed = ParseJson(values[0]);
    if (!parsed.ok() || !parsed->is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("args look like JSON but are not a JSON object: ", values[0]));
    }
    return parsed;
  }
  int pairs = 0;
  for (const std::string& value : values) {
    if (size_t eq = value.find('='); eq != std::string::npos && eq > 0) {
      args[value.substr(0, eq)] = value.substr(eq + 1);
      ++pairs;
    }
  }
  if (pairs == static_cast<int>(values.size())) return args;
  if (pairs == 0 && values.size() == 1) {
    if (spec.args().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "positional arg '", values[0], "' given, but flow '", spec.name(), "' declares no args"));
    }
    args[spec.args(0).name()] = values[0];
    return args;
  }
  return absl::InvalidArgumentError(
      "args must be one JSON object, key=value pairs, or a single value for the first declared "
      "arg; got: " +
      absl::StrJoin(values, " "));
}

}  // namespace taskboard::flow
