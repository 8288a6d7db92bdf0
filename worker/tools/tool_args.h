#ifndef TASKBOARD_WORKER_TOOLS_TOOL_ARGS_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_ARGS_H_

// Reading the arguments of a built-in tool call, with errors an agent (or
// the LLM behind it) can act on: which argument, what was expected.

#include <initializer_list>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::worker {

// INVALID_ARGUMENT when `args_json` is not a JSON object, or has a field
// outside `known` (a typo must not pass silently).
absl::StatusOr<Json> ParseToolArgs(absl::string_view args_json,
                                   std::initializer_list<absl::string_view> known);

// INVALID_ARGUMENT when present but not a string.
absl::StatusOr<std::optional<std::string>> OptionalStringArg(const Json& args,
                                                             absl::string_view name);

// INVALID_ARGUMENT when missing, null or not a string.
absl::StatusOr<std::string> RequiredStringArg(const Json& args, absl::string_view name);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_ARGS_H_
