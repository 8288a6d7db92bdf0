#ifndef TASKBOARD_COMMON_JSON_H_
#define TASKBOARD_COMMON_JSON_H_

// The JSON value type used throughout Taskboard.
//
// Objects keep insertion order: flow args are declared in order (a positional
// CLI value binds to the first one) and agent JSON is shown back to agents
// the way they wrote it. Hashing and cache keys use CanonicalJson, which
// sorts keys itself.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace taskboard {

using Json = nlohmann::ordered_json;

// Parses JSON text. INVALID_ARGUMENT with the parser's message on failure
// (syntax errors, and numbers outside the range of a double such as 1e999),
// or naming the limit and the path when the text nests deeper than
// MaxJsonDepth() (common/json_depth.h): every Json value Taskboard holds is
// that shallow, so the recursive dumps and conversions are safe on it.
absl::StatusOr<Json> ParseJson(absl::string_view text);

// The same parse without the reason: nullopt exactly when ParseJson fails.
// It never throws, so it is the one to use where most texts are not JSON and
// the reason would be dropped (ExtractJson on agent output): a failed parse
// through ParseJson throws and catches an exception inside the parser, which
// cost about 3 µs per text, 30 ms on the engine thread to merge a 10,000-item
// map whose items answered in prose.
std::optional<Json> TryParseJson(absl::string_view text);

// Compact JSON text (no whitespace, insertion order). Invalid UTF-8 in
// strings is replaced rather than thrown on.
std::string DumpJson(const Json& value);

// JSON text pretty-printed with a 2-space indent (how interpolation renders
// objects and arrays).
std::string DumpJsonPretty(const Json& value);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_JSON_H_
